// agentskills-cpp MCP client — what a server sends, checked: message framing, SSE bodies,
// `skill://` URIs, skills/list entries and resources/read results.
#include <set>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "../shared/internal.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

namespace agentskills::mcp::client_detail {

using nlohmann::json;

namespace {

constexpr std::size_t MAX_JSON_DEPTH = 64;

bool is_sha256_digest(const json& v) {
    if (!v.is_string()) return false;
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() != 7 + 64 || s.compare(0, 7, "sha256:") != 0) return false;
    for (std::size_t i = 7; i < s.size(); ++i) {
        const char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

std::string shown(std::string_view text) {
    // URIs in messages: at most 200 bytes, printable (diagnostics escape the rest).
    if (text.size() <= 200) return std::string(text);
    return std::string(text.substr(0, 200)) + "...";
}

}  // namespace

json parse_message(std::string_view text) {
    namespace d = agentskills::mcp::detail;
    json message;
    std::string repeated;
    switch (d::read_message(text, MAX_JSON_DEPTH, message, &repeated)) {
        case d::MessageFault::none:
            break;
        case d::MessageFault::depth:
            throw ClientError(fmt::format("the server sent a message nested deeper than {} levels", MAX_JSON_DEPTH));
        case d::MessageFault::duplicate_key:
            throw ClientError(
                fmt::format("the server sent a message with the key \"{}\" twice in one object", shown(repeated)));
        case d::MessageFault::syntax:
            throw ClientError("the server sent a line that is not JSON");
    }
    if (!message.is_object()) throw ClientError("the server sent a JSON value that is not a JSON-RPC message");
    const auto v = message.find("jsonrpc");
    if (v == message.end() || *v != "2.0") throw ClientError("the server sent a message without jsonrpc \"2.0\"");
    return message;
}

bool same_id(const json& a, const json& b) {
    // nlohmann's == compares numbers across their types (1 == 1.0, 1 == 1u): compare the types
    // first, then integers by value whichever of int64 and uint64 holds them.
    if (a.is_number_integer() && b.is_number_integer()) {
        if (a.is_number_unsigned() == b.is_number_unsigned()) return a == b;
        const json& s = a.is_number_unsigned() ? b : a;
        const json& u = a.is_number_unsigned() ? a : b;
        const auto signed_value = s.get<std::int64_t>();
        return signed_value >= 0 && static_cast<std::uint64_t>(signed_value) == u.get<std::uint64_t>();
    }
    if (a.is_number_integer() || b.is_number_integer()) return false;
    return a.type() == b.type() && a == b;
}

Reply reply_to(const json& message, const json& id) {
    if (message.contains("method")) return Reply::unrelated;  // a request or notification of the server
    const auto it = message.find("id");
    if (it != message.end() && same_id(*it, id) && (message.contains("result") || message.contains("error"))) {
        return Reply::answer;
    }
    return Reply::wrong;
}

std::string wrong_reply(const json& message, const json& id) {
    const auto it = message.find("id");
    if (it == message.end()) return fmt::format("the server sent a response without an id to request {}", id.dump());
    std::string given = it->dump(-1, ' ', false, json::error_handler_t::replace);
    if (given.size() > 100) given = given.substr(0, 100) + "...";
    if (!message.contains("result") && !message.contains("error")) {
        return fmt::format("the server sent a message with id {} but neither result nor error", given);
    }
    return fmt::format("the server answered request {} with id {}, not the request's id", id.dump(), given);
}

std::vector<json> parse_sse(std::string_view body) {
    std::vector<json> out;
    std::string data;
    bool has_data = false;
    auto flush = [&] {
        if (has_data) out.push_back(parse_message(data));
        data.clear();
        has_data = false;
    };
    std::size_t pos = 0;
    while (pos <= body.size()) {
        std::size_t end = body.find('\n', pos);
        if (end == std::string_view::npos) end = body.size();
        std::string_view line = body.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) {
            flush();
        } else if (line.rfind("data:", 0) == 0) {
            std::string_view value = line.substr(5);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
            if (has_data) data += '\n';
            data.append(value);
            has_data = true;
        }  // event:, id:, retry: and comments carry nothing we use
        if (end == body.size()) break;
        pos = end + 1;
    }
    flush();
    return out;
}

std::string CheckedEntry::base() const {
    std::string out(detail::SCHEME);
    for (const auto& p : prefix) {
        out += p;
        out += '/';
    }
    out += name;
    return out;
}

std::optional<CheckedEntry> check_entry(const json& entry, const EntryLimits& limits, EntryProblem& problem,
                                        std::string& uri_out) {
    auto fail = [&](std::string check, std::string message) -> std::optional<CheckedEntry> {
        problem = {std::move(check), std::move(message)};
        return std::nullopt;
    };
    if (!entry.is_object()) return fail("entry", "the entry is not an object");
    const auto uri_it = entry.find("uri");
    if (uri_it == entry.end() || !uri_it->is_string()) return fail("uri", "the entry has no string uri");
    CheckedEntry out;
    out.uri = uri_it->get<std::string>();
    uri_out = out.uri;
    std::string why;
    const std::optional<SkillUri> uri = parse_skill_uri(out.uri, why);
    if (!uri) return fail("uri", fmt::format("the URI is not a clean skill:// path: {}", why));
    if (uri->segments.size() < 2 || uri->segments.back() != "SKILL.md") {
        return fail("uri", "the URI does not end in <name>/SKILL.md");
    }
    out.name = uri->segments[uri->segments.size() - 2];
    out.prefix.assign(uri->segments.begin(), uri->segments.end() - 2);

    const auto fm = entry.find("frontmatter");
    if (fm == entry.end() || !fm->is_object()) return fail("frontmatter", "the entry's frontmatter is not an object");
    out.frontmatter = *fm;
    const auto name = fm->find("name");
    if (name == fm->end() || !name->is_string()) return fail("name", "the frontmatter has no string name");
    if (name->get_ref<const std::string&>() != out.name) {
        return fail("name", fmt::format("the URI names '{}' but frontmatter.name is '{}'", shown(out.name),
                                        shown(name->get_ref<const std::string&>())));
    }

    const auto res = entry.find("resources");
    if (res == entry.end() || !res->is_array()) return fail("file-count", "the entry lists no resources array");
    if (res->size() > limits.max_files) {
        return fail("file-count", fmt::format("{} files listed, more than {}", res->size(), limits.max_files));
    }
    const std::vector<std::string>& skill_segments = uri->segments;
    const std::size_t depth = skill_segments.size() - 1;  // prefix + name
    std::uint64_t total = 0;
    std::set<std::string, std::less<>> seen;
    bool has_skill_md = false;
    for (const auto& r : *res) {
        if (!r.is_object() || !r.contains("uri") || !r["uri"].is_string()) {
            return fail("file-uri", "a listed file has no string uri");
        }
        ListedFile f;
        f.uri = r["uri"].get<std::string>();
        const std::optional<SkillUri> fu = parse_skill_uri(f.uri, why);
        if (!fu)
            return fail("file-uri",
                        fmt::format("the file URI '{}' is not a clean skill:// path: {}", shown(f.uri), why));
        if (fu->segments.size() <= depth ||
            !std::equal(skill_segments.begin(), skill_segments.begin() + static_cast<std::ptrdiff_t>(depth),
                        fu->segments.begin())) {
            return fail("file-uri", fmt::format("the file URI '{}' is not inside the skill", shown(f.uri)));
        }
        for (std::size_t i = depth; i < fu->segments.size(); ++i) {
            if (!f.relative.empty()) f.relative += '/';
            f.relative += fu->segments[i];
        }
        const auto digest = r.find("digest");
        if (digest == r.end() || !is_sha256_digest(*digest)) {
            return fail("file-digest", fmt::format("the file '{}' has no sha256: digest", shown(f.uri)));
        }
        f.digest = digest->get<std::string>();
        const auto size = r.find("size");
        if (size == r.end() || !size->is_number_unsigned()) {
            return fail("file-size", fmt::format("the file '{}' has no size", shown(f.uri)));
        }
        f.size = size->get<std::uint64_t>();
        if (f.size > limits.max_total_bytes || total + f.size > limits.max_total_bytes) {
            return fail("total-size", fmt::format("the listed files hold more than {} bytes", limits.max_total_bytes));
        }
        total += f.size;
        if (!seen.insert(f.relative).second) {
            return fail("duplicate-file", fmt::format("the file '{}' is listed twice", shown(f.relative)));
        }
        if (f.relative == "SKILL.md") {
            has_skill_md = true;
            out.files.insert(out.files.begin(), std::move(f));
        } else {
            out.files.push_back(std::move(f));
        }
    }
    if (!has_skill_md) return fail("skill-file-unlisted", "SKILL.md is not among the listed files");
    return out;
}

std::string read_result_bytes(const json& result, std::string_view uri) {
    if (!result.is_object()) throw ClientError("resources/read: the result is not an object");
    const auto contents = result.find("contents");
    if (contents == result.end() || !contents->is_array() || contents->size() != 1) {
        throw ClientError("resources/read: the result does not hold exactly one content item");
    }
    const json& item = (*contents)[0];
    if (!item.is_object() || !item.contains("uri") || item["uri"] != uri) {
        throw ClientError(fmt::format("resources/read: the content is not for '{}'", shown(uri)));
    }
    if (const auto text = item.find("text"); text != item.end()) {
        if (!text->is_string()) throw ClientError("resources/read: text is not a string");
        return text->get<std::string>();
    }
    if (const auto blob = item.find("blob"); blob != item.end()) {
        if (!blob->is_string()) throw ClientError("resources/read: blob is not a string");
        std::optional<std::string> bytes = agentskills::mcp::detail::base64_decode(blob->get_ref<const std::string&>());
        if (!bytes) throw ClientError("resources/read: blob is not base64");
        return std::move(*bytes);
    }
    throw ClientError("resources/read: the content has neither text nor blob");
}

bool verify_file(const ListedFile& file, std::string_view bytes, EntryProblem& problem) {
    if (bytes.size() != file.size) {
        problem = {"file-size",
                   fmt::format("'{}' is {} bytes, listed as {}", shown(file.uri), bytes.size(), file.size)};
        return false;
    }
    if (agentskills::mcp::detail::sha256_digest(bytes) != file.digest) {
        problem = {"file-digest", fmt::format("'{}' does not match its listed digest", shown(file.uri))};
        return false;
    }
    return true;
}

}  // namespace agentskills::mcp::client_detail
