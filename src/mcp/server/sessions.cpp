// agentskills-cpp MCP server — the handshake era's HTTP session table (see sessions.hpp).
#include "sessions.hpp"

#include <iterator>
#include <utility>

#include "../shared/internal.hpp"
#include "state.hpp"

namespace agentskills::mcp::detail {

namespace {

/// Session objects kept made (each may hold a database connection for its activations); the
/// others are made again from the store when asked for.
constexpr std::size_t SESSION_CACHE = 128;

/// The activation store of a session, asked of the session store on first use (so that a
/// session that never calls the tool costs no connection to a shared database).
class LazyActivationStore final : public ActivationStore {
public:
    LazyActivationStore(SessionStorePtr store, std::string id) : store_(std::move(store)), id_(std::move(id)) {}
    [[nodiscard]] ClaimResult claim(std::string_view name) override { return get().claim(name); }
    void confirm(std::string_view name) override { get().confirm(name); }
    void roll_back(std::string_view name) override { get().roll_back(name); }
    [[nodiscard]] std::vector<std::string> active_names() const override { return get().active_names(); }
    [[nodiscard]] bool prompt_delivered() const override { return get().prompt_delivered(); }
    bool mark_prompt_delivered() override { return get().mark_prompt_delivered(); }
    void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) override {
        get().wait_for_change(name, deadline);
    }
    [[nodiscard]] bool is_active(std::string_view name) const override { return get().is_active(name); }

private:
    ActivationStore& get() const {
        std::lock_guard lock(mutex_);
        if (!inner_) inner_ = store_->activations(id_);
        return *inner_;
    }
    SessionStorePtr store_;
    std::string id_;
    mutable std::mutex mutex_;
    mutable ActivationStorePtr inner_;
};

}  // namespace

SessionTable::SessionTable(const Server& server, const HttpOptions& options)
    : server_(server),
      store_(options.session_store ? options.session_store : std::make_shared<MemorySessionStore>()),
      limits_{options.session_idle_timeout, options.max_sessions_per_client, options.max_sessions},
      cache_max_(SESSION_CACHE) {}

void SessionTable::cache(const std::string& id, std::shared_ptr<Session> session) {
    uncache(id);
    order_.push_back(id);
    cached_[id] = {std::move(session), std::prev(order_.end())};
    // Dropping a session from the cache ends nothing: it is made again from the store.
    while (cached_.size() > cache_max_) uncache(order_.front());
}

void SessionTable::uncache(const std::string& id) {
    const auto it = cached_.find(id);
    if (it == cached_.end()) return;
    order_.erase(it->second.position);
    cached_.erase(it);
}

std::optional<std::string> SessionTable::add(std::string_view client, std::shared_ptr<Session> session) {
    std::string id = random_hex_id();
    std::string version;
    {
        std::lock_guard lock(session->mutex);
        version = session->version;
    }
    if (store_->open(id, version, client, limits_) != SessionOpen::opened) return std::nullopt;
    session->activations = std::make_shared<LazyActivationStore>(store_, id);
    std::lock_guard lock(mutex_);
    cache(id, std::move(session));
    return id;
}

std::shared_ptr<Session> SessionTable::find(const std::string& id) {
    const auto version = store_->touch(id, limits_.idle_timeout);
    std::lock_guard lock(mutex_);
    if (!version) {
        uncache(id);
        return nullptr;
    }
    if (const auto it = cached_.find(id); it != cached_.end()) {
        order_.splice(order_.end(), order_, it->second.position);
        return it->second.session;
    }
    // Opened on another replica (or dropped from the cache): the same session, made again.
    auto session = server_.open_session();
    {
        std::lock_guard session_lock(session->mutex);
        session->initialized = true;
        session->version = *version;
    }
    session->activations = std::make_shared<LazyActivationStore>(store_, id);
    cache(id, session);
    return session;
}

bool SessionTable::remove(const std::string& id) {
    const bool removed = store_->remove(id);
    std::lock_guard lock(mutex_);
    uncache(id);
    return removed;
}

}  // namespace agentskills::mcp::detail
