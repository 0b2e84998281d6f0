// agentskills-cpp MCP server — the stdio transport: one JSON-RPC message per line.
#include <istream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include <fmt/core.h>

#include "agentskills/mcp/server.hpp"

namespace agentskills::mcp {

int serve_stdio(const Server& server, std::istream& in, std::ostream& out) {
    // Replies and notifications (from the thread that calls replace_catalog) share the output
    // under one lock, so a notification never lands inside a reply; once this returns, a late
    // notification finds no stream.
    struct Output {
        std::mutex mutex;
        std::ostream* out = nullptr;
    };
    const auto output = std::make_shared<Output>();
    output->out = &out;
    // A line goes out in one write (text and newline together), so the reader is woken once.
    const auto write_line = [output](std::string_view text) {
        std::string line;
        line.reserve(text.size() + 1);
        line.append(text);
        line.push_back('\n');
        std::lock_guard lock(output->mutex);
        if (output->out == nullptr || !*output->out) return;
        output->out->write(line.data(), static_cast<std::streamsize>(line.size()));
        output->out->flush();
    };
    const auto write_reply = [output](std::string& text) {
        text.push_back('\n');
        std::lock_guard lock(output->mutex);
        if (output->out == nullptr || !*output->out) return;
        output->out->write(text.data(), static_cast<std::streamsize>(text.size()));
        output->out->flush();
    };
    struct Detach {
        std::shared_ptr<Output> output;
        ~Detach() {
            std::lock_guard lock(output->mutex);
            output->out = nullptr;
        }
    } detach{output};
    const std::shared_ptr<Session> session = server.open_session(write_line);
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
            if (line.size() >= limit + (c == '\r' ? 1 : 0)) {  // a CR before the '\n' is not counted
                too_long = true;
                line.clear();
                line.shrink_to_fit();
                continue;
            }
            line.push_back(static_cast<char>(c));
        }
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (too_long) {
            write_line(fmt::format(
                "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600,\"message\":\"Invalid Request: "
                "the message is larger than {} bytes\"}}}}",
                limit));
        } else if (line.find_first_not_of(" \t") != std::string::npos) {
            Exchange ex = server.handle(line, *session);
            if (ex.response) write_reply(*ex.response);
        }
        bool failed = false;
        {
            std::lock_guard lock(output->mutex);
            failed = !out;
        }
        if (eof || failed) break;
    }
    return 0;
}

}  // namespace agentskills::mcp
