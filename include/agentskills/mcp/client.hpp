// agentskills-cpp MCP client — skills served by MCP servers (the skills extension,
// `io.modelcontextprotocol/skills`) as a skill source: a stdio or Streamable HTTP transport, a
// session in either protocol era, and a verifying SkillLoader / SkillReader (docs/sources.md,
// "MCP servers"). Part of agentskills::mcp (CMake option AGENTSKILLS_MCP).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../base/errors.hpp"
#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills::mcp {

/// Default time one request may take, from sending it to the end of its answer.
inline constexpr std::chrono::milliseconds CLIENT_REQUEST_TIMEOUT{10'000};
/// Default bound on one message from a server (a stdio line, an HTTP body): room for a file of
/// CLIENT_MAX_SKILL_BYTES in base64 plus its envelope.
inline constexpr std::size_t CLIENT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/// The extension's per-skill limits: files listed in one entry and the sum of their sizes.
inline constexpr std::size_t CLIENT_MAX_SKILL_FILES = 512;
inline constexpr std::uint64_t CLIENT_MAX_SKILL_BYTES = 16 * 1024 * 1024;
/// Most `skills/list` pages and entries read from one server per discovery.
inline constexpr std::size_t CLIENT_MAX_PAGES = 1'000;
inline constexpr std::size_t CLIENT_MAX_ENTRIES = 10'000;
/// Default bound on the standard error of one stdio server passed on (per connection): 64 KiB.
inline constexpr std::size_t CLIENT_MAX_STDERR_BYTES = 64 * 1024;

/// The server failed as a transport or a protocol peer: it could not be started, it died,
/// stalled past the timeout, closed the connection, sent something that is not a JSON-RPC
/// message or a message over the size bound. The connection is closed afterwards.
class ClientError : public IoError {
public:
    using IoError::IoError;
};

/// The server answered a request with a JSON-RPC error.
class ServerError : public ClientError {
public:
    ServerError(int code, const std::string& message) : ClientError(message), code_(code) {}
    [[nodiscard]] int code() const noexcept { return code_; }

private:
    int code_;
};

/// Moves one JSON-RPC message to a server and its answer back. Implementations are not
/// thread-safe; Client serializes calls.
class ClientTransport {
public:
    virtual ~ClientTransport();
    /// Sends `request` (a JSON-RPC request with id `id`) and returns the server's response to
    /// it, parsed: the response whose `id` is the very JSON value `id` (same type and value: the
    /// integer 1 is not "1", 1.0 or true). Notifications and requests of the server's own are
    /// skipped; any other response is an error for this request (ClientError), never a match.
    /// `headers` are HTTP request headers (stdio ignores them). Throws ClientError.
    [[nodiscard]] virtual nlohmann::json request(const nlohmann::json& request, const nlohmann::json& id,
                                                 const std::vector<std::pair<std::string, std::string>>& headers) = 0;
    /// Sends a notification (no answer is read).
    virtual void notify(const nlohmann::json& notification,
                        const std::vector<std::pair<std::string, std::string>>& headers) = 0;
};

/// Bounds of a transport (docs/security.md, "MCP servers as skill sources").
struct TransportLimits {
    std::chrono::milliseconds timeout = CLIENT_REQUEST_TIMEOUT;  ///< per request
    std::size_t max_message_bytes = CLIENT_MAX_MESSAGE_BYTES;    ///< per server message
    /// stdio: bytes of the server's standard error passed on per connection; the rest is counted
    /// and dropped (one line says how many bytes).
    std::size_t max_stderr_bytes = CLIENT_MAX_STDERR_BYTES;
};

/// Receives one line of a stdio server's standard error, ready to print: labelled
/// (`MCP server 'LABEL' (stderr): `) and escaped with terminal_text (no control character is
/// left raw). Called on the thread that sends a request or closes the transport; must not block
/// for long. An exception it throws is dropped.
using StderrSink = std::function<void(std::string_view line)>;

/// How a stdio server's standard error is passed on.
struct StdioOptions {
    std::string label = {};       ///< names the server on each line
    StderrSink stderr_sink = {};  ///< default (empty): written to the host's standard error
};

/// Starts `argv[0]` (searched in PATH when it has no '/') with `argv[1..]`, no shell, stdin and
/// stdout connected to the client (one JSON message per line), in a process group of its own.
/// The server runs below a small reaper process forked from the client (Linux: a child subreaper,
/// so every process the server starts, `setsid` and double-forked daemons included, stays below
/// it); when the transport is destroyed or fails, the server gets 100 ms to exit on its closed
/// input, then the reaper kills (SIGKILL) and reaps the server's group and every process left
/// below it, and is reaped itself. Only the three standard descriptors reach the server. Its
/// standard error is read while a request waits and at close, split into lines, escaped and
/// labelled, bounded by `limits.max_stderr_bytes` (docs/security.md). Throws ClientError when it
/// cannot be started, ConfigurationError for an empty argv.
[[nodiscard]] std::unique_ptr<ClientTransport> make_stdio_transport(const std::vector<std::string>& argv,
                                                                    const TransportLimits& limits = {},
                                                                    StdioOptions stdio = {});

/// Streamable HTTP: each message is POSTed to `url` (`http://HOST[:PORT][/PATH]`; not
/// `https://`), `Accept: application/json, text/event-stream`; the
/// answer is the JSON body or the matching message of a `text/event-stream` body. A
/// `Mcp-Session-Id` the server gives is sent back on every later request. Throws
/// ConfigurationError for a URL it cannot use.
[[nodiscard]] std::unique_ptr<ClientTransport> make_http_transport(const std::string& url,
                                                                   const TransportLimits& limits = {});

/// Splits a command line into argv: words separated by white space; a double-quoted part may
/// hold white space (`"a b"`), `\"` and `\\` inside quotes are a quote and a backslash; nothing
/// else is special (no shell: no variables, globs, pipes or single quotes). Throws
/// ConfigurationError for an unclosed quote or an empty command.
[[nodiscard]] std::vector<std::string> split_command_line(std::string_view command);

enum class ProtocolEra {
    automatic,    ///< try `server/discover` (2026-07-28); on a JSON-RPC error, `initialize`
    v2026_07_28,  ///< stateless: `_meta` protocol version and client capabilities on every request
    v2025_11_25   ///< handshake: `initialize` + `notifications/initialized`
};

/// A session with one server: the era is settled by the first request.
class Client {
public:
    Client(std::unique_ptr<ClientTransport> transport, ProtocolEra era = ProtocolEra::automatic);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    /// Sends `method` with `params` (an object) and returns its `result`. Throws ServerError for
    /// a JSON-RPC error, ClientError for a transport failure or a malformed answer (after one,
    /// every later call throws ClientError). Safe to call from several threads (serialized).
    [[nodiscard]] nlohmann::json call(std::string_view method, nlohmann::json params = nlohmann::json::object());
    /// The era in use (automatic until the first call settled it).
    [[nodiscard]] ProtocolEra era() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// One server as a skill source.
struct ServerSource {
    /// Names the server in diagnostics, origins and `<label>:<name>` names. Non-empty.
    std::string label;
    /// stdio: the program and its arguments (set this or `url`).
    std::vector<std::string> command = {};
    /// Streamable HTTP endpoint.
    std::string url = {};
};

struct McpLoaderOptions {
    ProtocolEra era = ProtocolEra::automatic;
    TransportLimits transport = {};
    /// Most `skills/list` pages read per discovery; a `nextCursor` given before in the same listing
    /// (a cycle: A, B, A) also ends it, reported once.
    std::size_t max_pages = CLIENT_MAX_PAGES;
    std::size_t max_entries = CLIENT_MAX_ENTRIES;
    std::size_t max_skill_files = CLIENT_MAX_SKILL_FILES;
    std::uint64_t max_skill_bytes = CLIENT_MAX_SKILL_BYTES;
    /// SKILL.md limits, as for local skills (the listed size is checked before anything is read).
    std::size_t max_lines = SKILL_MAX_FILE_LINES;
    std::size_t max_bytes = SKILL_MAX_FILE_BYTES;
    /// How SKILL.md's name is checked (the URI's last segment stands for the directory name).
    NamePolicy name_policy = NamePolicy::keep;
    /// Keep `allowed-tools` / `tools` of served skills (dropped by default: a server does not
    /// grant tools).
    bool trust_allowed_tools = false;
    /// Where the standard error of stdio servers goes (each line labelled with the server's label
    /// and escaped; see StdioOptions). Default: the host's standard error.
    StderrSink server_stderr = {};
};

/// Skills from one or more MCP servers, verified as the extension tells hosts to (docs/sources.md):
/// every listed entry's URI, file count and sizes; SKILL.md's size, digest and frontmatter against
/// the entry; the name against the URI. A skill failing a check is skipped (`mcp-verification-failed`
/// names the server, the URI and the check); a server that fails is skipped (`mcp-server-error`);
/// the other skills load. Names that occur more than once (in one server or across the servers
/// of this loader) become `<prefix>:<name>`, the prefix being the URI's path before the name, else
/// the server's label. Each manifest's `library` is `mcp:<label>`, `root` the skill's `skill://`
/// base and `skill_file` its SKILL.md URI; files are read through `reader_for(name)` (verified
/// against the listing on every read).
///
/// Servers are connected on the first `discover()` and kept for later calls. Thread-safe.
class McpSkillLoader final : public SkillLoader {
public:
    /// Throws ConfigurationError for a source without label, or with both or neither of
    /// command and url.
    explicit McpSkillLoader(std::vector<ServerSource> servers, McpLoaderOptions options = {});
    /// One server on a transport of your own (tests, other transports).
    McpSkillLoader(std::string label, std::unique_ptr<ClientTransport> transport, McpLoaderOptions options = {});
    ~McpSkillLoader() override;
    McpSkillLoader(const McpSkillLoader&) = delete;
    McpSkillLoader& operator=(const McpSkillLoader&) = delete;

    [[nodiscard]] Discovery discover() override;
    [[nodiscard]] LoadedSkill load(std::string_view name) override;
    /// True: the activation text names the `skill://` base and gives each file's URI.
    [[nodiscard]] bool in_run_workspace(std::string_view name) const override;
    /// The verifying reader of this loader's skills (nullptr for a name it does not serve).
    [[nodiscard]] SkillReaderPtr reader_for(std::string_view name) const override;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace agentskills::mcp
