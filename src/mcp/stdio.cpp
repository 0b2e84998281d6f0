// agentskills-cpp MCP server — the stdio transport: one JSON-RPC message per line.
#include <istream>
#include <ostream>
#include <string>

#include <fmt/core.h>

#include "agentskills/mcp_server.hpp"

namespace agentskills::mcp {

int serve_stdio(const Server& server, std::istream& in, std::ostream& out) {
    const std::shared_ptr<Session> session = server.open_session();
    const std::size_t limit = server.options().max_message_bytes;
    std::string line;
    std::streambuf* buf = in.rdbuf();
    for (;;) {
        line.clear();
        bool too_long = false;
        bool eof = false;
        // Reads up to '\n' without keeping more than `limit` bytes of an over-long line.
        for (;;) {
            const int c = buf->sbumpc();
            if (c == std::char_traits<char>::eof()) {
                eof = true;
                break;
            }
            if (c == '\n') break;
            if (too_long) continue;
            if (line.size() >= limit) {
                too_long = true;
                line.clear();
                line.shrink_to_fit();
                continue;
            }
            line.push_back(static_cast<char>(c));
        }
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (too_long) {
            out << fmt::format(
                       "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600,\"message\":\"Invalid Request: "
                       "the message is larger than {} bytes\"}}}}",
                       limit)
                << '\n'
                << std::flush;
        } else if (line.find_first_not_of(" \t") != std::string::npos) {
            const Exchange ex = server.handle(line, *session);
            if (ex.response) out << *ex.response << '\n' << std::flush;
        }
        if (eof || !out) break;
    }
    return 0;
}

}  // namespace agentskills::mcp
