// agentskills-cpp MCP client — private pieces shared by the loader, the transports, the tests and
// the fuzz target: framing of server messages and the checks of skill entries.
#pragma once

#include "../shared/internal.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills::mcp::client_detail {

/// A server message as text -> JSON. Throws ClientError when it is not one JSON object, is
/// deeper than 64 levels, gives a key twice in one object, or is not JSON-RPC 2.0.
[[nodiscard]] nlohmann::json parse_message(std::string_view text);

/// What a server message is to the request the client is waiting for.
enum class Reply {
    unrelated,  ///< a request or notification of the server's own (it has a `method`)
    answer,     ///< the response to it: its `id` is the very JSON value sent, with a result or an error
    wrong       ///< any other response: an error for that request, never a match
};

/// Whether the ids `a` and `b` are the same JSON value, type included: the integer 1 is not "1",
/// not 1.0 and not true (an integer read as unsigned is still the same integer).
[[nodiscard]] bool same_id(const nlohmann::json& a, const nlohmann::json& b);

/// Classifies `message` against the request `id` (same_id, and a `result` or an `error`).
[[nodiscard]] Reply reply_to(const nlohmann::json& message, const nlohmann::json& id);

/// The ClientError for a `wrong` reply: names the id the server gave (cut to 100 bytes).
[[nodiscard]] std::string wrong_reply(const nlohmann::json& message, const nlohmann::json& id);

/// The JSON-RPC messages of a `text/event-stream` body (`data:` lines of each event joined by
/// LF; events without data are dropped). Throws ClientError for a data part that is not a
/// JSON-RPC message.
[[nodiscard]] std::vector<nlohmann::json> parse_sse(std::string_view body);

/// The one `skill://` parser (mcp/shared).
using detail::parse_skill_uri;
using detail::SkillUri;

/// One listed file of an entry.
struct ListedFile {
    std::string uri;       ///< as the server spelled it (used to read it)
    std::string relative;  ///< decoded path below the skill directory ("SKILL.md", "scripts/x.sh")
    std::string digest;    ///< "sha256:" + 64 lowercase hex
    std::uint64_t size = 0;
};

/// A `skills/list` entry that passed the structural checks.
struct CheckedEntry {
    std::string uri;                         ///< the SKILL.md URI as listed
    std::vector<std::string> prefix;         ///< decoded segments before the name
    std::string name;                        ///< the segment before SKILL.md (== frontmatter.name)
    nlohmann::json frontmatter;              ///< as listed
    std::vector<ListedFile> files;           ///< SKILL.md first, then in listing order
    [[nodiscard]] std::string base() const;  ///< "skill://" + decoded prefix/name
};

struct EntryLimits {
    std::size_t max_files = 512;
    std::uint64_t max_total_bytes = 16 * 1024 * 1024;
};

/// The failed check of an entry: `check` is the stable name (uri, frontmatter, name,
/// file-count, total-size, file-uri, file-digest, file-size, duplicate-file, skill-file-unlisted).
struct EntryProblem {
    std::string check;
    std::string message;
};

/// Checks one entry of `skills/list` (everything that can be checked without reading a file).
/// Returns the entry, or sets `problem` and returns nullopt. `uri_out` receives the entry's URI
/// when it is a string (for diagnostics).
[[nodiscard]] std::optional<CheckedEntry> check_entry(const nlohmann::json& entry, const EntryLimits& limits,
                                                      EntryProblem& problem, std::string& uri_out);

/// The bytes of a `resources/read` result for `uri`: exactly one content item with that URI and a
/// `text` (its UTF-8 bytes) or a base64 `blob`. Throws ClientError otherwise.
[[nodiscard]] std::string read_result_bytes(const nlohmann::json& result, std::string_view uri);

/// Verifies `bytes` against a listed file: sets `problem` (file-size / file-digest) and returns
/// false on a mismatch.
[[nodiscard]] bool verify_file(const ListedFile& file, std::string_view bytes, EntryProblem& problem);

}  // namespace agentskills::mcp::client_detail
