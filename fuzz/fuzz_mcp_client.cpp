// Fuzz target: the MCP client's handling of what a server sends (agentskills::mcp::McpSkillLoader
// over a scripted transport, and the message, SSE and URI parsers it uses).
//
// Input: an option byte, then the server's answers separated by '\n', one consumed per request
// the client sends (server/discover or initialize, skills/list pages, resources/read, ...).
//   option bits: 0 read each answer as a text/event-stream body ('\r' stands for a line break)
//                1 set each answer's id to the request's (so answers match without guessing ids)
//                2 pin the 2025-11-25 era (else automatic)   3 keep allowed-tools
//                4 ids of every JSON type: each `$I` and the character after it in an answer become
//                  a variant of the request's id N, picked by that character (N, "N", N.0, Ne0,
//                  true, null, [N], {"id":N}, -N, N + 2^32, N + 2^53, N + 2^64, 2^64 - 1, -2^63,
//                  1e400, 0, -0, ...)
// Invariants: only agentskills errors escape; a message is taken as the answer to a request
// exactly when it has no method, a result or an error, and an id that serializes as the request's
// id does (the same type and value: an independent statement of the rule), and same_id is
// symmetric; every kept skill has a non-empty name, a root `skill://` + clean segments (no empty,
// `.` or `..`), skill_file = root + "/SKILL.md", the library `mcp:fuzz`, and no allowed-tools
// unless kept; reading any listed resource through reader_for either returns bytes or throws an
// agentskills error.
#include <agentskills/base/errors.hpp>
#include <agentskills/mcp/client.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../src/mcp/client/client_internal.hpp"
#include "fuzz_common.hpp"

using namespace agentskills;
using nlohmann::json;

namespace {

/// The text of variant `pick` of the integer id `n` (option bit 4).
std::string id_variant(std::uint64_t n, unsigned char pick) {
    const std::string d = std::to_string(n);
    switch (pick % 20) {
        case 0:
            return d;
        case 1:
            return "\"" + d + "\"";
        case 2:
            return d + ".0";
        case 3:
            return d + "e0";
        case 4:
            return "true";
        case 5:
            return "null";
        case 6:
            return "[" + d + "]";
        case 7:
            return "{\"id\":" + d + "}";
        case 8:
            return "-" + d;
        case 9:
            return std::to_string(n + (std::uint64_t{1} << 32));
        case 10:
            return std::to_string(n + (std::uint64_t{1} << 53));
        case 11:
            return "1844674407370955161" + std::to_string(6 + n);  // 2^64 + n (past uint64)
        case 12:
            return std::to_string(std::numeric_limits<std::uint64_t>::max());
        case 13:
            return std::to_string(std::numeric_limits<std::int64_t>::min());
        case 14:
            return "1e400";
        case 15:
            return "0";
        case 16:
            return "-0";
        case 17:
            return " " + d + " ";
        case 18:
            return d + "00000000000000000000";
        default:
            return "\"\"";
    }
}

class ScriptedTransport final : public mcp::ClientTransport {
public:
    ScriptedTransport(std::vector<std::string> answers, bool sse, bool fix_ids, bool id_variants)
        : answers_(std::move(answers)), sse_(sse), fix_ids_(fix_ids), id_variants_(id_variants) {}

    json request(const json& /*request*/, const json& id,
                 const std::vector<std::pair<std::string, std::string>>& /*headers*/) override {
        while (next_ < answers_.size()) {
            std::string text = answers_[next_++];
            if (id_variants_ && id.is_number_integer() && id.get<std::int64_t>() >= 0) {
                for (std::size_t at = text.find("$I"); at != std::string::npos && at + 2 < text.size();
                     at = text.find("$I", at)) {
                    const std::string v = id_variant(static_cast<std::uint64_t>(id.get<std::int64_t>()),
                                                     static_cast<unsigned char>(text[at + 2]));
                    text.replace(at, 3, v);
                    at += v.size();
                }
            }
            std::vector<json> messages;
            if (sse_) {
                for (char& c : text) {
                    if (c == '\r') c = '\n';
                }
                messages = mcp::client_detail::parse_sse(text);
            } else {
                messages.push_back(mcp::client_detail::parse_message(text));
            }
            for (auto& m : messages) {
                if (fix_ids_ && !m.contains("method")) m["id"] = id;
                const mcp::client_detail::Reply reply = mcp::client_detail::reply_to(m, id);
                const auto given = m.find("id");
                const bool same = given != m.end() && given->dump() == id.dump();
                FUZZ_CHECK((reply == mcp::client_detail::Reply::answer) ==
                           (!m.contains("method") && same && (m.contains("result") || m.contains("error"))));
                if (given != m.end()) {
                    FUZZ_CHECK(mcp::client_detail::same_id(*given, id) == mcp::client_detail::same_id(id, *given));
                    FUZZ_CHECK(mcp::client_detail::same_id(*given, id) == same);
                }
                if (reply == mcp::client_detail::Reply::answer) return m;
                if (reply == mcp::client_detail::Reply::wrong) {
                    throw mcp::ClientError(mcp::client_detail::wrong_reply(m, id));
                }
            }
        }
        throw mcp::ClientError("the script has no more answers");
    }
    void notify(const json& /*n*/, const std::vector<std::pair<std::string, std::string>>& /*h*/) override {}

private:
    std::vector<std::string> answers_;
    std::size_t next_ = 0;
    bool sse_;
    bool fix_ids_;
    bool id_variants_;
};

bool clean_root(const std::string& root) {
    constexpr std::string_view scheme = "skill://";
    if (root.rfind(scheme, 0) != 0) return false;
    const std::string_view path = std::string_view(root).substr(scheme.size());
    std::size_t pos = 0;
    while (true) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view seg = path.substr(pos, end - pos);
        if (seg.empty() || seg == "." || seg == "..") return false;
        if (end == path.size()) return true;
        pos = end + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t options = in.byte();
    std::vector<std::string> answers;
    while (!in.empty() && answers.size() < 64) answers.emplace_back(in.until('\n'));

    // The URI checker on every answer, as a URI.
    for (const auto& a : answers) {
        std::string why;
        (void)mcp::client_detail::parse_skill_uri(a, why);
    }

    mcp::McpLoaderOptions lo;
    lo.era = (options & 4) != 0 ? mcp::ProtocolEra::v2025_11_25 : mcp::ProtocolEra::automatic;
    lo.trust_allowed_tools = (options & 8) != 0;
    try {
        mcp::McpSkillLoader loader(
            "fuzz",
            std::make_unique<ScriptedTransport>(answers, (options & 1) != 0, (options & 2) != 0, (options & 16) != 0),
            lo);
        const Discovery d = loader.discover();
        for (const auto& m : d.skills) {
            FUZZ_CHECK(!m.name.empty());
            FUZZ_CHECK(clean_root(m.root));
            FUZZ_CHECK(m.skill_file == m.root + "/SKILL.md");
            FUZZ_CHECK(m.library == "mcp:fuzz");
            if ((options & 8) == 0) FUZZ_CHECK(m.allowed_tools.empty());
            try {
                const LoadedSkill s = loader.load(m.name);
                const SkillReaderPtr reader = loader.reader_for(m.name);
                FUZZ_CHECK(reader != nullptr);
                for (const auto& r : s.resources) {
                    try {
                        (void)reader->read_file(m.root + "/" + r.path, 1 << 20);
                    } catch (const Error&) {
                    }
                }
            } catch (const Error&) {
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
