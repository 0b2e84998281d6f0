// agentskills-cpp MCP client — the stdio transport: a child process started with posix_spawnp (no
// shell) whose stdin and stdout are one end of a socket pair, one JSON message per line, every
// read and write bounded by the request's deadline and the message size.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace agentskills::mcp {

ClientTransport::~ClientTransport() = default;

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

class StdioTransport final : public ClientTransport {
public:
    StdioTransport(const std::vector<std::string>& argv, const TransportLimits& limits) : limits_(limits) {
        if (argv.empty() || argv.front().empty()) throw ConfigurationError("MCP stdio server: empty command");
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            throw ClientError(fmt::format("MCP stdio server: socketpair failed: {}", std::strerror(errno)));
        }
        posix_spawn_file_actions_t actions;
        posix_spawnattr_t attr;
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, sv[1], STDOUT_FILENO);
        // Own process group (so the whole group can be killed) and default signal handling.
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGPIPE);
        sigaddset(&defaults, SIGTERM);
        sigaddset(&defaults, SIGINT);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(
            &attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));
        std::vector<char*> args;
        args.reserve(argv.size() + 1);
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT
        args.push_back(nullptr);
        pid_t pid = 0;
        const int rc = ::posix_spawnp(&pid, argv.front().c_str(), &actions, &attr, args.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        ::close(sv[1]);
        if (rc != 0) {
            ::close(sv[0]);
            throw ClientError(fmt::format("MCP stdio server: cannot start '{}': {}", argv.front(), std::strerror(rc)));
        }
        fd_ = sv[0];
        pid_ = pid;
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
    }

    ~StdioTransport() override { shut_down(); }
    StdioTransport(const StdioTransport&) = delete;
    StdioTransport& operator=(const StdioTransport&) = delete;

    json request(const json& request, const json& id,
                 const std::vector<std::pair<std::string, std::string>>& /*headers*/) override {
        const Clock::time_point deadline = Clock::now() + limits_.timeout;
        send_line(request.dump(-1, ' ', false, json::error_handler_t::replace), deadline);
        while (true) {
            std::string line = read_line(deadline);
            if (line.empty()) continue;  // blank lines carry nothing
            json message = client_detail::parse_message(line);
            switch (client_detail::reply_to(message, id)) {
                case client_detail::Reply::answer:
                    return message;
                case client_detail::Reply::wrong:
                    fail(client_detail::wrong_reply(message, id));
                case client_detail::Reply::unrelated:
                    break;
            }
            if (message.contains("id")) {
                // A request of the server's own (ping, roots, sampling): we offer none of them.
                json reply = {{"jsonrpc", "2.0"},
                              {"id", message["id"]},
                              {"error", {{"code", -32601}, {"message", "Method not found"}}}};
                send_line(reply.dump(), deadline);
            }
        }
    }

    void notify(const json& notification,
                const std::vector<std::pair<std::string, std::string>>& /*headers*/) override {
        send_line(notification.dump(-1, ' ', false, json::error_handler_t::replace), Clock::now() + limits_.timeout);
    }

private:
    [[noreturn]] void fail(const std::string& why) {
        shut_down();
        throw ClientError(fmt::format("MCP stdio server: {}", why));
    }

    int wait_for(short events, Clock::time_point deadline) {
        while (true) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                fail(fmt::format("no answer within {} ms", limits_.timeout.count()));
            }
            pollfd p{fd_, events, 0};
            const int rc = ::poll(&p, 1, static_cast<int>(left > 1'000'000 ? 1'000'000 : left));
            if (rc < 0 && errno == EINTR) continue;
            if (rc < 0) fail(fmt::format("poll failed: {}", std::strerror(errno)));
            if (rc == 0) continue;
            return p.revents;
        }
    }

    void send_line(std::string text, Clock::time_point deadline) {
        if (fd_ < 0) throw ClientError("MCP stdio server: the connection is closed");
        text += '\n';
        std::size_t sent = 0;
        while (sent < text.size()) {
            const ssize_t n = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
            if (n > 0) {
                sent += static_cast<std::size_t>(n);
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                (void)wait_for(POLLOUT, deadline);
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            fail(fmt::format("the server closed its input ({})", n < 0 ? std::strerror(errno) : "no progress"));
        }
    }

    std::string read_line(Clock::time_point deadline) {
        if (fd_ < 0) throw ClientError("MCP stdio server: the connection is closed");
        while (true) {
            const std::size_t nl = buffer_.find('\n', scanned_);
            if (nl != std::string::npos) {
                std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                scanned_ = 0;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                return line;
            }
            scanned_ = buffer_.size();
            if (buffer_.size() > limits_.max_message_bytes) {
                fail(fmt::format("a message longer than {} bytes", limits_.max_message_bytes));
            }
            (void)wait_for(POLLIN, deadline);
            char chunk[65536];
            const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
            if (n > 0) {
                buffer_.append(chunk, static_cast<std::size_t>(n));
            } else if (n == 0) {
                fail(buffer_.empty() ? "the server exited or closed its output"
                                     : "the server closed its output in the middle of a message");
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                fail(fmt::format("read failed: {}", std::strerror(errno)));
            }
        }
    }

    void shut_down() noexcept {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
        if (pid_ > 0) {
            // Closing its input lets a well-behaved server exit; give it a moment, then kill the group.
            int status = 0;
            for (int i = 0; i < 20; ++i) {
                if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                    ::kill(-pid_, SIGKILL);  // anything it left behind in its group
                    pid_ = -1;
                    return;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            ::kill(-pid_, SIGKILL);
            ::kill(pid_, SIGKILL);
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
        }
        buffer_.clear();
    }

    TransportLimits limits_;
    int fd_ = -1;
    pid_t pid_ = -1;
    std::string buffer_;
    std::size_t scanned_ = 0;
};

}  // namespace

std::unique_ptr<ClientTransport> make_stdio_transport(const std::vector<std::string>& argv,
                                                      const TransportLimits& limits) {
    return std::make_unique<StdioTransport>(argv, limits);
}

std::vector<std::string> split_command_line(std::string_view command) {
    std::vector<std::string> out;
    std::string word;
    bool in_word = false;
    bool quoted = false;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (quoted) {
            if (c == '"') {
                quoted = false;
            } else if (c == '\\' && i + 1 < command.size() && (command[i + 1] == '"' || command[i + 1] == '\\')) {
                word += command[++i];
            } else {
                word += c;
            }
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            if (in_word) out.push_back(std::move(word));
            word.clear();
            in_word = false;
        } else if (c == '"') {
            quoted = true;
            in_word = true;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (quoted) throw ConfigurationError("MCP server command: unclosed double quote");
    if (in_word) out.push_back(std::move(word));
    if (out.empty() || out.front().empty()) throw ConfigurationError("MCP server command: empty command");
    for (const auto& w : out) {
        if (w.find('\0') != std::string::npos) throw ConfigurationError("MCP server command: NUL in an argument");
    }
    return out;
}

}  // namespace agentskills::mcp
