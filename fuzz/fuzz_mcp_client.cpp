// Fuzz target: the MCP client's handling of what a server sends (agentskills::mcp::McpSkillLoader
// over a scripted transport, and the message, SSE and URI parsers it uses).
//
// Input: an option byte, then the server's answers separated by '\n', one consumed per request
// the client sends (server/discover or initialize, skills/list pages, resources/read, ...).
//   option bits: 0 read each answer as a text/event-stream body ('\r' stands for a line break)
//                1 set each answer's id to the request's (so answers match without guessing ids)
//                2 pin the 2025-11-25 era (else automatic)   3 keep allowed-tools
// Invariants: only agentskills errors escape; every kept skill has a non-empty name, a root
// `skill://` + clean segments (no empty, `.` or `..`), skill_file = root + "/SKILL.md", the
// library `mcp:fuzz`, and no allowed-tools unless kept; reading any listed resource through
// reader_for either returns bytes or throws an agentskills error.
#include <agentskills/base/errors.hpp>
#include <agentskills/mcp/client.hpp>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../src/mcp/client/client_internal.hpp"
#include "fuzz_common.hpp"

using namespace agentskills;
using nlohmann::json;

namespace {

class ScriptedTransport final : public mcp::ClientTransport {
public:
    ScriptedTransport(std::vector<std::string> answers, bool sse, bool fix_ids)
        : answers_(std::move(answers)), sse_(sse), fix_ids_(fix_ids) {}

    json request(const json& /*request*/, const json& id,
                 const std::vector<std::pair<std::string, std::string>>& /*headers*/) override {
        while (next_ < answers_.size()) {
            std::string text = answers_[next_++];
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
                if (mcp::client_detail::answers(m, id)) return m;
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
            "fuzz", std::make_unique<ScriptedTransport>(answers, (options & 1) != 0, (options & 2) != 0), lo);
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
