// agentskills-cpp MCP client — the stdio transport. The server runs below a reaper: a process forked
// from the client (a child subreaper on Linux) that starts it with execve, reaps what is orphaned
// below it and, when the client lets go, kills and reaps all of it. The server's stdin and stdout
// are one end of a socket pair (one JSON message per line, every read and write bounded by the
// request's deadline and the message size); its stderr is a pipe the client reads, splits into
// lines, escapes, labels and bounds.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/text.hpp"
#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace agentskills::mcp {

ClientTransport::~ClientTransport() = default;

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// ---- The reaper and the server's start. Both run in forked children of a process that may have
// other threads, so they call only async-signal-safe functions (no allocation, no locks, no
// formatting): everything they need is prepared before the fork.

/// What the forked processes need, built before the fork.
struct Launch {
    std::vector<std::string> candidates;      ///< paths to execve, in PATH order
    std::vector<const char*> candidate_ptrs;  ///< the same, null-terminated
    std::vector<char*> argv;                  ///< null-terminated
    char** envp = nullptr;
    int sock = -1;     ///< the server's stdin and stdout
    int err = -1;      ///< write end of the server's stderr pipe
    int status = -1;   ///< write end: the errno of a failed start (closed unwritten when execve succeeds)
    int control = -1;  ///< the reaper's end of a socket pair: readable when the client lets go (or dies)
};

/// The server's grace to exit on its closed input before it is killed: 20 x 5 ms.
constexpr int GRACE_STEPS = 20;

void no_op(int /*signal*/) {}

void sleep_5ms() {
    timespec t{0, 5'000'000L};
    while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/// Closes the descriptors lo..hi (hi < 0: to the last one).
void close_fds(int lo, int hi) {
    if (hi >= 0 && hi < lo) return;
    if (::close_range(static_cast<unsigned>(lo), hi < 0 ? ~0U : static_cast<unsigned>(hi), 0) == 0) return;
    int top = hi;
    if (top < 0) {
        rlimit limit{};
        top = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? static_cast<int>(limit.rlim_cur) - 1
                                                                                : 65535;
    }
    for (int fd = lo; fd <= top; ++fd) (void)::close(fd);
}

/// Closes every descriptor but the four of `keep`.
void close_all_but(std::array<int, 4> keep) {
    std::sort(keep.begin(), keep.end());
    int from = 0;
    for (const int fd : keep) {
        close_fds(from, fd - 1);
        from = fd + 1;
    }
    close_fds(from, -1);
}

/// The parent of `pid` from /proc/PID/stat ("PID (COMM) STATE PPID ..."), or -1.
pid_t parent_of(const char* pid_text) {
    char path[64] = "/proc/";
    std::size_t at = 6;
    for (const char* c = pid_text; *c != '\0' && at + 6 < sizeof path; ++c) path[at++] = *c;
    for (const char* c = "/stat"; *c != '\0'; ++c) path[at++] = *c;
    path[at] = '\0';
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[512];
    const ssize_t n = ::read(fd, text, sizeof text);
    (void)::close(fd);
    if (n <= 0) return -1;
    ssize_t i = n - 1;
    while (i >= 0 && text[i] != ')') --i;  // COMM may hold ')' and spaces: the last one ends it
    i += 4;                                // ") S "
    if (i >= n) return -1;
    pid_t parent = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) parent = parent * 10 + (text[i] - '0');
    return parent;
}

/// Sends SIGKILL to every child of this process (found in /proc). False when /proc cannot be read.
bool kill_children() {
    const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return false;
    const pid_t self = ::getpid();
    alignas(8) char buffer[8192];
    while (true) {
        const ssize_t n = ::getdents64(dir, buffer, sizeof buffer);
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            const auto* entry = reinterpret_cast<const dirent64*>(buffer + off);  // NOLINT
            off += entry->d_reclen;
            const char* name = entry->d_name;
            pid_t pid = 0;
            bool digits = name[0] != '\0';
            for (const char* c = name; *c != '\0' && digits; ++c) {
                digits = *c >= '0' && *c <= '9';
                pid = pid * 10 + (*c - '0');
            }
            if (digits && pid != self && parent_of(name) == self) (void)::kill(pid, SIGKILL);
        }
    }
    (void)::close(dir);
    return true;
}

/// Kills and reaps everything below this process: each round kills every child (the orphans of
/// the last round's victims were adopted, this process being a subreaper) and reaps, until no
/// child is left.
void kill_descendants() {
    while (true) {
        int status = 0;
        if (!kill_children()) {
            while (::waitpid(-1, &status, WNOHANG) > 0) {
            }
            return;
        }
        const pid_t reaped = ::waitpid(-1, &status, 0);
        if (reaped < 0 && errno == EINTR) continue;
        if (reaped < 0) return;  // ECHILD: nothing is left below
        while (::waitpid(-1, &status, WNOHANG) > 0) {
        }
    }
}

[[noreturn]] void exec_server(const Launch& launch) {
    struct sigaction act {};
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    (void)::sigaction(SIGPIPE, &act, nullptr);
    (void)::sigaction(SIGCHLD, &act, nullptr);
    (void)::setpgid(0, 0);  // its own process group, killed as one
    // Copies above 2 first, so no dup2 below closes a descriptor still to be copied.
    const int io = ::fcntl(launch.sock, F_DUPFD_CLOEXEC, 3);
    const int err = ::fcntl(launch.err, F_DUPFD_CLOEXEC, 3);
    int error = 0;
    if (io < 0 || err < 0 || ::dup2(io, STDIN_FILENO) < 0 || ::dup2(io, STDOUT_FILENO) < 0 ||
        ::dup2(err, STDERR_FILENO) < 0) {
        error = errno;
    } else {
        sigset_t none;
        sigemptyset(&none);
        (void)::sigprocmask(SIG_SETMASK, &none, nullptr);
        // As execvp: the first candidate that runs; EACCES if one was denied and none ran.
        bool denied = false;
        bool stopped = false;
        error = ENOENT;
        for (const char* const* path = launch.candidate_ptrs.data(); *path != nullptr && !stopped; ++path) {
            ::execve(*path, launch.argv.data(), launch.envp);
            error = errno;
            denied = denied || error == EACCES;
            stopped = error != EACCES && error != ENOENT && error != ENOTDIR && error != ESTALE && error != ENODEV &&
                      error != ETIMEDOUT;
        }
        if (denied && !stopped) error = EACCES;
    }
    (void)::write(launch.status, &error, sizeof error);
    ::_exit(127);
}

/// The reaper: starts the server, reaps what dies below it while the client holds the control
/// socket, then gives the server its grace, kills its group and everything left below, and exits.
[[noreturn]] void run_reaper(const Launch& launch) {
    struct sigaction act {};
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;  // no handler of the host runs here
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) (void)::sigaction(sig, &act, nullptr);
    }
    act.sa_handler = SIG_IGN;
    (void)::sigaction(SIGPIPE, &act, nullptr);
    act.sa_handler = no_op;  // wakes ppoll below
    (void)::sigaction(SIGCHLD, &act, nullptr);
    (void)::setpgid(0, 0);  // away from the terminal's signals to the host's group
#ifdef __linux__
    (void)::prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
#endif
    close_all_but({launch.sock, launch.err, launch.status, launch.control});
    const pid_t server = ::fork();
    if (server == 0) exec_server(launch);
    if (server < 0) {
        const int error = errno;
        (void)::write(launch.status, &error, sizeof error);
    }
    (void)::close(launch.sock);
    (void)::close(launch.err);
    (void)::close(launch.status);
    bool running = server > 0;
    auto reap = [&] {
        int status = 0;
        pid_t pid = 0;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) running = running && pid != server;
    };
    sigset_t only_child;
    sigfillset(&only_child);
    sigdelset(&only_child, SIGCHLD);
    while (true) {
        reap();
        pollfd p{launch.control, POLLIN, 0};
        if (::ppoll(&p, 1, nullptr, &only_child) < 0 && errno == EINTR) continue;
        break;  // the client let go: it wrote its byte, closed its end or died
    }
    for (int i = 0; i < GRACE_STEPS && running; ++i) {
        sleep_5ms();
        reap();
    }
    if (server > 0) (void)::kill(-server, SIGKILL);
    kill_descendants();
    ::_exit(0);
}

/// The files `file` names for execve: itself when it has a '/', else each PATH entry + file
/// (PATH unset: the system's default path), as execvp searches.
std::vector<std::string> exec_candidates(const std::string& file) {
    if (file.find('/') != std::string::npos) return {file};
    std::string path;
    if (const char* env = std::getenv("PATH")) {
        path = env;
    } else {
        path.resize(::confstr(_CS_PATH, nullptr, 0));
        if (!path.empty()) {
            (void)::confstr(_CS_PATH, path.data(), path.size());
            path.pop_back();  // the terminating NUL
        }
    }
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t colon = path.find(':', start);
        std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        out.push_back((dir.empty() ? std::string(".") : dir) + "/" + file);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return out;
}

/// A stdio server's standard error on its way to the sink: lines, escaped and labelled, at most
/// `max_bytes` of it, then one line with the count of bytes dropped.
class StderrRelay {
public:
    StderrRelay(const std::string& label, StderrSink sink, std::size_t max_bytes)
        : prefix_(fmt::format("MCP server '{}' (stderr): ", terminal_text(label))),
          sink_(std::move(sink)),
          max_bytes_(max_bytes) {}

    void feed(std::string_view bytes) {
        const std::size_t take = std::min(bytes.size(), max_bytes_ - passed_);
        passed_ += take;
        for (const char c : bytes.substr(0, take)) {
            if (c == '\n') {
                emit(partial_);
                partial_.clear();
            } else {
                partial_ += c;
            }
        }
        if (take < bytes.size()) {
            dropped_ += bytes.size() - take;
            if (!partial_.empty()) emit(partial_);  // the line the bound cut
            partial_.clear();
        }
    }

    void finish() {
        if (!partial_.empty()) emit(partial_);
        partial_.clear();
        if (dropped_ > 0) {
            deliver(fmt::format("{}{} more bytes dropped (over the bound of {} bytes)", prefix_, dropped_, max_bytes_));
        }
        dropped_ = 0;
    }

private:
    void emit(std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        deliver(prefix_ + terminal_text(line));
    }

    void deliver(const std::string& line) const {
        if (!sink_) {
            std::string out = line + '\n';
            std::size_t done = 0;
            while (done < out.size()) {
                const ssize_t n = ::write(STDERR_FILENO, out.data() + done, out.size() - done);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) return;
                done += static_cast<std::size_t>(n);
            }
            return;
        }
        try {
            sink_(line);
        } catch (...) {  // NOLINT(bugprone-empty-catch): a failing log sink must not fail the transport
        }
    }

    std::string prefix_;
    StderrSink sink_;
    std::size_t max_bytes_;
    std::size_t passed_ = 0;
    std::uint64_t dropped_ = 0;
    std::string partial_;
};

class StdioTransport final : public ClientTransport {
public:
    StdioTransport(const std::vector<std::string>& argv, const TransportLimits& limits, StdioOptions stdio)
        : limits_(limits), relay_(stdio.label, std::move(stdio.stderr_sink), limits.max_stderr_bytes) {
        if (argv.empty() || argv.front().empty()) throw ConfigurationError("MCP stdio server: empty command");
        Launch launch;
        launch.candidates = exec_candidates(argv.front());
        for (const auto& c : launch.candidates) launch.candidate_ptrs.push_back(c.c_str());
        launch.candidate_ptrs.push_back(nullptr);
        for (const auto& a : argv) launch.argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT
        launch.argv.push_back(nullptr);
        launch.envp = environ;

        int sv[2] = {-1, -1};
        int err[2] = {-1, -1};
        int status[2] = {-1, -1};
        int control[2] = {-1, -1};
        auto close_all = [&] {
            for (int* pair : {sv, err, status, control}) {
                for (int i = 0; i < 2; ++i) {
                    if (pair[i] >= 0) ::close(pair[i]);
                    pair[i] = -1;
                }
            }
        };
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
            ::pipe2(status, O_CLOEXEC) != 0 || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0) {
            const int e = errno;
            close_all();
            throw ClientError(fmt::format("MCP stdio server: cannot make its pipes: {}", std::strerror(e)));
        }
        launch.sock = sv[1];
        launch.err = err[1];
        launch.status = status[1];
        launch.control = control[0];
        // No signal handler of the host may run in the child before the reaper resets them.
        sigset_t all;
        sigset_t before;
        sigfillset(&all);
        ::pthread_sigmask(SIG_SETMASK, &all, &before);
        const pid_t pid = ::fork();
        if (pid == 0) run_reaper(launch);
        const int fork_error = errno;
        ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
        for (int* end : {&sv[1], &err[1], &status[1], &control[0]}) {
            ::close(*end);
            *end = -1;
        }
        if (pid < 0) {
            close_all();
            throw ClientError(fmt::format("MCP stdio server: cannot start '{}': fork failed: {}", argv.front(),
                                          std::strerror(fork_error)));
        }
        // The reaper and the server close their ends of `status` (the server's by execve): EOF is
        // a start, an int is the errno of a failed one.
        int start_error = 0;
        std::size_t got = 0;
        while (got < sizeof start_error) {
            const ssize_t n = ::read(status[0], reinterpret_cast<char*>(&start_error) + got, sizeof start_error - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        if (got != 0) {
            close_all();  // the control socket hangs up: the reaper exits
            int st = 0;
            while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            throw ClientError(fmt::format("MCP stdio server: cannot start '{}': {}", argv.front(),
                                          got == sizeof start_error ? std::strerror(start_error) : "unknown error"));
        }
        ::close(status[0]);
        fd_ = sv[0];
        err_fd_ = err[0];
        control_ = control[1];
        reaper_ = pid;
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
        ::fcntl(err_fd_, F_SETFL, ::fcntl(err_fd_, F_GETFL) | O_NONBLOCK);
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
                send_line(reply.dump(-1, ' ', false, json::error_handler_t::replace), deadline);
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

    /// Passes on what the server wrote to stderr (one read). False when nothing was read.
    bool read_stderr() {
        char chunk[16384];
        const ssize_t n = ::read(err_fd_, chunk, sizeof chunk);
        if (n > 0) {
            relay_.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
            return true;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) stderr_open_ = false;
        return false;
    }

    /// Waits for `events` on the socket until the deadline, passing on the server's stderr
    /// meanwhile (a server blocked on a full stderr pipe would stall).
    int wait_for(short events, Clock::time_point deadline) {
        while (true) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                fail(fmt::format("no answer within {} ms", limits_.timeout.count()));
            }
            pollfd p[2] = {{fd_, events, 0}, {err_fd_, POLLIN, 0}};
            const int rc = ::poll(p, stderr_open_ ? 2 : 1, static_cast<int>(left > 1'000'000 ? 1'000'000 : left));
            if (rc < 0 && errno == EINTR) continue;
            if (rc < 0) fail(fmt::format("poll failed: {}", std::strerror(errno)));
            if (stderr_open_ && p[1].revents != 0) (void)read_stderr();
            if (p[0].revents != 0) return p[0].revents;
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
            ::close(fd_);  // the server reads EOF: a well-behaved one exits
            fd_ = -1;
        }
        if (control_ >= 0) {
            // The reaper gives the server its grace, then kills all below it. It wakes on the byte
            // (a process the host forked without exec may hold this end open) or on the hang-up.
            const char bye = 0;
            (void)::send(control_, &bye, 1, MSG_NOSIGNAL);  // no SIGPIPE if the reaper is gone
            ::close(control_);
            control_ = -1;
        }
        if (reaper_ > 0) {
            int status = 0;
            while (::waitpid(reaper_, &status, 0) < 0 && errno == EINTR) {
            }
            reaper_ = -1;
        }
        if (err_fd_ >= 0) {
            // What is left in the pipe (its writers are gone; a bounded number of reads all the same).
            for (int i = 0; i < 64 && stderr_open_ && read_stderr(); ++i) {
            }
            ::close(err_fd_);
            err_fd_ = -1;
            stderr_open_ = false;
            relay_.finish();
        }
        buffer_.clear();
    }

    TransportLimits limits_;
    StderrRelay relay_;
    int fd_ = -1;
    int err_fd_ = -1;
    bool stderr_open_ = true;
    int control_ = -1;
    pid_t reaper_ = -1;
    std::string buffer_;
    std::size_t scanned_ = 0;
};

}  // namespace

std::unique_ptr<ClientTransport> make_stdio_transport(const std::vector<std::string>& argv,
                                                      const TransportLimits& limits, StdioOptions stdio) {
    return std::make_unique<StdioTransport>(argv, limits, std::move(stdio));
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
