// agentskills-cpp MCP server — the handshake era's HTTP sessions (`Mcp-Session-Id`): the one
// table the HTTP transport asks for a session by id. The transport owns sockets and requests;
// this table owns which sessions exist, how long they live and where they are kept.
//
// The sessions themselves (id, version, client, last use, activations) live in a SessionStore:
// this process's memory by default, or a database several replicas share. The table keeps a
// bounded cache of Session objects made from it; a session missing from the cache (opened on
// another replica, or dropped from the cache) is made again from the store.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agentskills/activation/session_store.hpp"
#include "agentskills/mcp/server.hpp"

namespace agentskills::mcp::detail {

class SessionTable {
public:
    SessionTable(const Server& server, const HttpOptions& options);

    /// Registers `session` (which just finished `initialize`) for the client at `client` (its
    /// address, without the port); returns the new session id, or nullopt when that client may
    /// not open another session (it holds too many, or all clients together do).
    [[nodiscard]] std::optional<std::string> add(std::string_view client, std::shared_ptr<Session> session);
    /// The session `id` names (marked used now), or null when it is unknown or expired.
    [[nodiscard]] std::shared_ptr<Session> find(const std::string& id);
    /// Ends session `id`; false when it did not exist.
    bool remove(const std::string& id);

private:
    struct Slot {
        std::shared_ptr<Session> session;
        std::list<std::string>::iterator position;
    };
    void cache(const std::string& id, std::shared_ptr<Session> session);  // under mutex_
    void uncache(const std::string& id);                                  // under mutex_

    const Server& server_;
    SessionStorePtr store_;
    SessionLimits limits_;
    std::size_t cache_max_;
    std::mutex mutex_;
    std::list<std::string> order_;  // of the cache, least recently used first
    std::unordered_map<std::string, Slot> cached_;
};

}  // namespace agentskills::mcp::detail
