// agentskills-cpp MCP server — the handshake era's HTTP session table (see sessions.hpp).
#include "sessions.hpp"

#include <iterator>

#include "../shared/internal.hpp"
#include "state.hpp"

namespace agentskills::mcp::detail {

SessionTable::SessionTable(const Server& server, const HttpOptions& options)
    : server_(server), max_(options.max_sessions == 0 ? 1 : options.max_sessions) {}

std::optional<std::string> SessionTable::add(std::string_view /*client*/, std::shared_ptr<Session> session) {
    std::string id = random_hex_id();
    std::lock_guard lock(mutex_);
    while (map_.size() >= max_) {
        map_.erase(order_.front());
        order_.pop_front();
    }
    order_.push_back(id);
    map_[id] = {std::move(session), std::prev(order_.end())};
    return id;
}

std::shared_ptr<Session> SessionTable::find(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = map_.find(id);
    if (it == map_.end()) return nullptr;
    order_.splice(order_.end(), order_, it->second.position);
    return it->second.session;
}

bool SessionTable::remove(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = map_.find(id);
    if (it == map_.end()) return false;
    order_.erase(it->second.position);
    map_.erase(it);
    return true;
}

}  // namespace agentskills::mcp::detail
