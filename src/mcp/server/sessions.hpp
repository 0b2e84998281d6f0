// agentskills-cpp MCP server — the handshake era's HTTP sessions (`Mcp-Session-Id`): the one
// table the HTTP transport asks for a session by id. The transport owns sockets and requests;
// this table owns which sessions exist, how long they live and where they are kept.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agentskills/mcp/server.hpp"

namespace agentskills::mcp::detail {

class SessionTable {
public:
    SessionTable(const Server& server, const HttpOptions& options);

    /// Registers `session` (which just finished `initialize`) for the client at `client` (its
    /// address, without the port); returns the new session id, or nullopt when that client may
    /// not open another session.
    [[nodiscard]] std::optional<std::string> add(std::string_view client, std::shared_ptr<Session> session);
    /// The session `id` names, or null when it is unknown or expired.
    [[nodiscard]] std::shared_ptr<Session> find(const std::string& id);
    /// Ends session `id`; false when it did not exist.
    bool remove(const std::string& id);

private:
    struct Slot {
        std::shared_ptr<Session> session;
        std::list<std::string>::iterator position;
    };
    const Server& server_;
    std::size_t max_;
    std::mutex mutex_;
    std::list<std::string> order_;  // least recently used first
    std::unordered_map<std::string, Slot> map_;
};

}  // namespace agentskills::mcp::detail
