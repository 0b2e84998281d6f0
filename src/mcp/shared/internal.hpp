// agentskills-cpp MCP server — private pieces shared by the handler, the transports and the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../base/byte_scans.hpp"
#include "agentskills/lock/lock.hpp"

namespace agentskills::detail {
struct YamlTree;
}

namespace agentskills::mcp::detail {

/// `sha256:` and 64 lowercase hex digits: the library's one digest (agentskills::lock).
using agentskills::sha256_digest;

/// Standard base64 with padding, and its inverse (nullopt for text that is not base64).
[[nodiscard]] std::string base64_encode(std::string_view bytes);
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

/// A value for an MCP HTTP header that mirrors a body field (`Mcp-Name`, `Mcp-Param-*`; the
/// 2026-07-28 Streamable HTTP transport, "Value Encoding"): `value` itself when it is plain
/// header-safe ASCII (visible ASCII 0x21-0x7E, space, tab; no leading or trailing space or tab)
/// and does not match the sentinel pattern (starts with `=?base64?` and ends with `?=`), else
/// `=?base64?` + base64 of its bytes + `?=`.
[[nodiscard]] std::string header_value(std::string_view value);
/// The inverse of header_value, as a server reads such a header: a value in the base64 sentinel
/// (`=?base64?...?=`, at least the two marks apart) decoded, any other value as it is; nullopt
/// for a sentinel that does not hold base64.
[[nodiscard]] std::optional<std::string> decode_header_value(std::string_view value);
/// The body field that the `Mcp-Name` header mirrors (2026-07-28 Streamable HTTP, "Standard
/// Request Headers"): `name` of tools/call and prompts/get, `uri` of resources/read; empty for
/// every other method. One table for the client that sends the header and the server that checks it.
[[nodiscard]] std::string_view mcp_name_field(std::string_view method) noexcept;

/// Whether a Content-Type value names `media_type` (lowercase `type/subtype`): compared without
/// regard to case (RFC 9110 8.3.1), white space around it and parameters after a `;`
/// (`charset=utf-8`) allowed. `application/jsonx` or `application/json-patch+json` is not
/// `application/json`. The server's check of requests and the client's of answers.
[[nodiscard]] bool is_media_type(std::string_view content_type, std::string_view media_type) noexcept;

/// Percent-encodes one URI path segment: everything but RFC 3986 unreserved characters,
/// sub-delims, ':' and '@' (so every byte that is not ASCII, '%', '/', '?', '#', space, ...).
[[nodiscard]] std::string encode_segment(std::string_view segment);
/// Decodes %XX escapes; nullopt for a malformed escape.
[[nodiscard]] std::optional<std::string> decode_percent(std::string_view text);

/// The frontmatter of a SKILL.md as JSON, typed as a YAML 1.2 core-schema parser types it:
/// plain `null`/`~`/empty -> null, `true`/`false` (three spellings) -> bool, decimal, `0o` and
/// `0x` integers -> numbers, floats -> numbers, anything else (and every quoted or block
/// scalar) -> string. Throws std::runtime_error with a sentence for YAML that is not a mapping,
/// does not parse, has a non-scalar or duplicate key, a value JSON cannot hold (.inf, .nan),
/// nesting deeper than `max_depth` or more than `max_nodes` nodes (aliases expanded).
[[nodiscard]] nlohmann::json frontmatter_json(std::string_view skill_md, std::size_t max_depth = 64,
                                              std::size_t max_nodes = 100000);

/// frontmatter_json, and in `outside_sdk_subset` the first construct of the frontmatter that the
/// official TypeScript SDK's frontmatter reader (`src/ext/skills/frontmatter.ts` of
/// `@modelcontextprotocol/server` and `/client` 2.4.0) refuses — anchors, aliases and tags, a
/// mapping inside a flow collection, a flow collection or quoted value over more than one line,
/// a block scalar indentation indicator, a complex or non-string key, a tab in the indentation,
/// nesting past 32 levels, ... — as "what on line N", or nullopt when it reads the whole frontmatter
/// (src/mcp/shared/sdk_subset.cpp). The server leaves such skills out: the SDK's client re-parses
/// every SKILL.md it verifies.
[[nodiscard]] nlohmann::json frontmatter_json(std::string_view skill_md, std::size_t max_depth, std::size_t max_nodes,
                                              std::optional<std::string>& outside_sdk_subset);

/// frontmatter_json's two paths over the YAML text alone, both through the library's YAML front
/// end (src/parse/yaml.hpp): its fast path only (nullopt where it does not read the text, or
/// where the text is refused), and yaml-cpp only.
[[nodiscard]] std::optional<nlohmann::json> simple_frontmatter_json(std::string_view yaml);
[[nodiscard]] nlohmann::json yaml_frontmatter_json(std::string_view yaml, std::size_t max_depth = 64,
                                                   std::size_t max_nodes = 100000);

/// The check behind frontmatter_json's `outside_sdk_subset`, over a tree of `yaml`.
[[nodiscard]] std::optional<std::string> outside_sdk_subset(const agentskills::detail::YamlTree& tree,
                                                            std::string_view yaml);

/// The JSON text to echo for the `id` of a JSON-RPC message: the top-level member "id" of
/// `message` (valid JSON that nlohmann parsed, giving `id`) as the sender wrote it when it is a
/// number that nlohmann does not give back exactly — a float token (`1.50`, `1e2`) or an integer
/// past 64 bits (`123456789012345678901234567890`, which it reads as a double) — else `id`
/// printed. Of two members "id" the last counts, as in nlohmann's object (the server's own
/// reading, read_message, refuses such a message before it is answered).
[[nodiscard]] std::string id_text(std::string_view message, const nlohmann::json& id);

/// Why the text of a JSON-RPC message was not read (read_message).
enum class MessageFault { none, depth, duplicate_key, syntax };
/// The one reading of a JSON-RPC message's text, the server's (both transports) and the
/// client's: the core's JSON reader (src/base/json_text_check.hpp), one pass that builds `out`
/// and refuses a nesting deeper than `max_depth` levels (the top-level value is level 1) and a
/// key given twice in one object (nlohmann keeps the last of two "method" members; a proxy or
/// another SDK in front of us may keep the first and see another request). `out` is null unless
/// the result is MessageFault::none; `repeated_key`, when not null, gets the key given twice.
[[nodiscard]] MessageFault read_message(std::string_view text, std::size_t max_depth, nlohmann::json& out,
                                        std::string* repeated_key = nullptr);

inline constexpr std::string_view SCHEME = "skill://";
/// Bounds of a `skill://` URI that parse_skill_uri accepts.
inline constexpr std::size_t MAX_URI_BYTES = 1024;
inline constexpr std::size_t MAX_URI_SEGMENTS = 64;

/// A `skill://` URI split into decoded path segments.
struct SkillUri {
    std::vector<std::string> segments;
};

/// The one parser of `skill://` URIs, for the server (what clients ask for) and the client (what
/// servers list): scheme exactly `skill://`, no query or fragment, at least one segment, no empty,
/// `.` or `..` segment (raw or decoded), no escape that decodes to `/`, `\`, NUL or a control
/// character, only RFC 3986 path characters raw, valid UTF-8 after decoding, no `@` or `:` in the
/// first segment (no user or port), at most MAX_URI_BYTES bytes and MAX_URI_SEGMENTS segments.
/// Returns nullopt with `why` set when it is not clean.
[[nodiscard]] std::optional<SkillUri> parse_skill_uri(std::string_view uri, std::string& why);

/// Random 32 hex digits (OpenSSL RAND_bytes) for session ids.
[[nodiscard]] std::string random_hex_id();

}  // namespace agentskills::mcp::detail
