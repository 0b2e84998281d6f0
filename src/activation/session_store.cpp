// agentskills-cpp — the session store interface and the in-memory session store.
#include "agentskills/activation/session_store.hpp"

namespace agentskills {

SessionStore::~SessionStore() = default;

void MemorySessionStore::forget(std::map<std::string, Entry, std::less<>>::iterator it) {
    auto count = per_client_.find(it->second.client);
    if (count != per_client_.end() && --count->second == 0) per_client_.erase(count);
    sessions_.erase(it);
}

SessionOpen MemorySessionStore::open(std::string_view id, std::string_view version, std::string_view client,
                                     const SessionLimits& limits) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        auto next = std::next(it);
        if (now - it->second.last_used > bounded_idle_timeout(limits.idle_timeout)) forget(it);
        it = next;
    }
    if (limits.max_sessions != 0 && sessions_.size() >= limits.max_sessions) return SessionOpen::full;
    if (limits.max_per_client != 0) {
        const auto count = per_client_.find(client);
        if (count != per_client_.end() && count->second >= limits.max_per_client) return SessionOpen::client_full;
    }
    sessions_[std::string(id)] = {std::string(version), std::string(client), now,
                                  std::make_shared<MemoryActivationStore>()};
    ++per_client_[std::string(client)];
    return SessionOpen::opened;
}

std::optional<std::string> MemorySessionStore::touch(std::string_view id, std::chrono::milliseconds idle_timeout) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return std::nullopt;
    if (now - it->second.last_used > bounded_idle_timeout(idle_timeout)) {
        forget(it);
        return std::nullopt;
    }
    it->second.last_used = now;
    return it->second.version;
}

bool MemorySessionStore::remove(std::string_view id) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    forget(it);
    return true;
}

ActivationStorePtr MemorySessionStore::activations(std::string_view id) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    // A session forgotten meanwhile: a store of its own, which nothing else sees.
    if (it == sessions_.end()) return std::make_shared<MemoryActivationStore>();
    return it->second.activations;
}

std::size_t MemorySessionStore::size() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

}  // namespace agentskills
