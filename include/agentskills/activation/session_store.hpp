// agentskills-cpp — where the sessions of a server live: an id, the protocol version it
// negotiated, the client address that opened it, when it was last used, and the activation
// store of what it activated. The MCP server's handshake era (`Mcp-Session-Id`) keeps its
// sessions in one (agentskills::mcp, HttpOptions::session_store): in this process's memory by
// default, or in a database that several replicas share (agentskills::sqlite's
// SqliteSessionStore, agentskills::postgres's PostgresSessionStore), so that a session opened on
// one replica continues on another. See docs/mcp.md, "Sessions".
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "activation.hpp"

namespace agentskills {

/// The longest idle timeout a session store honours: 365 days. A longer one (up to
/// `milliseconds::max()`) is taken as this bound, and one below zero as zero: the stores subtract
/// it from the clock, which a larger value would overflow (every session then ended at once).
inline constexpr std::chrono::milliseconds SESSION_MAX_IDLE_TIMEOUT = std::chrono::hours(24 * 365);

/// `idle_timeout` within 0 and SESSION_MAX_IDLE_TIMEOUT, as every store uses it.
[[nodiscard]] constexpr std::chrono::milliseconds bounded_idle_timeout(
    std::chrono::milliseconds idle_timeout) noexcept {
    if (idle_timeout < std::chrono::milliseconds::zero()) return std::chrono::milliseconds::zero();
    return idle_timeout > SESSION_MAX_IDLE_TIMEOUT ? SESSION_MAX_IDLE_TIMEOUT : idle_timeout;
}

/// When sessions end and how many may be open. A session ends when it was not used for
/// `idle_timeout`, or when its client ends it; never because other clients opened sessions.
struct SessionLimits {
    /// A session unused this long is gone (its id is then unknown); at most
    /// SESSION_MAX_IDLE_TIMEOUT (bounded_idle_timeout).
    std::chrono::milliseconds idle_timeout = std::chrono::minutes(30);
    /// Sessions one client address may hold at once (0 = no cap).
    std::size_t max_per_client = 64;
    /// Sessions held at once by all clients together (0 = no cap); past it new ones are refused.
    std::size_t max_sessions = 1024;
};

/// What SessionStore::open did.
enum class SessionOpen {
    opened,       ///< the session exists now
    client_full,  ///< refused: its client holds `max_per_client` sessions
    full,         ///< refused: `max_sessions` sessions are open
};

/// The sessions of one server (or of several replicas sharing a database). Every member is safe
/// to call from several threads; failures of a database throw Error.
class SessionStore {
public:
    virtual ~SessionStore();
    /// Forgets the sessions idle for longer than `limits.idle_timeout`, then opens session `id`
    /// (a fresh random id) at protocol `version` for `client` (an address) unless a cap is hit.
    [[nodiscard]] virtual SessionOpen open(std::string_view id, std::string_view version, std::string_view client,
                                           const SessionLimits& limits) = 0;
    /// The version session `id` negotiated, marking it used now; nullopt when it is unknown, or
    /// was idle longer than `idle_timeout` (it is then forgotten).
    [[nodiscard]] virtual std::optional<std::string> touch(std::string_view id,
                                                           std::chrono::milliseconds idle_timeout) = 0;
    /// Ends session `id` and forgets its activations; false when it did not exist.
    virtual bool remove(std::string_view id) = 0;
    /// The activation store of session `id` (what it activated; shared by every replica).
    [[nodiscard]] virtual ActivationStorePtr activations(std::string_view id) = 0;
};

using SessionStorePtr = std::shared_ptr<SessionStore>;

/// The conversation of session `id` in a shared activation store (`mcp-session:<id>`).
[[nodiscard]] inline std::string session_conversation(std::string_view id) { return "mcp-session:" + std::string(id); }

/// Sessions in this process's memory (each with a MemoryActivationStore).
class MemorySessionStore final : public SessionStore {
public:
    [[nodiscard]] SessionOpen open(std::string_view id, std::string_view version, std::string_view client,
                                   const SessionLimits& limits) override;
    [[nodiscard]] std::optional<std::string> touch(std::string_view id,
                                                   std::chrono::milliseconds idle_timeout) override;
    bool remove(std::string_view id) override;
    [[nodiscard]] ActivationStorePtr activations(std::string_view id) override;
    /// Sessions open now (idle ones included until the next open()).
    [[nodiscard]] std::size_t size() const;

private:
    struct Entry {
        std::string version;
        std::string client;
        std::chrono::steady_clock::time_point last_used;
        ActivationStorePtr activations;
    };
    void forget(std::map<std::string, Entry, std::less<>>::iterator it);
    mutable std::mutex mutex_;
    std::map<std::string, Entry, std::less<>> sessions_;
    std::map<std::string, std::size_t, std::less<>> per_client_;
};

}  // namespace agentskills
