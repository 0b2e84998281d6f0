// What a ```cpp fragment block of README.md and docs/*.md may use without declaring it: the
// host's own names that the guides' fragments stand on (its model, its tools, its reply
// function, ...) and the objects an earlier block of the same guide made (`loader`, `catalog`,
// `core`, `store`, `skills`). Declared only: fragments are compiled, never linked or run
// (tests/docs/CMakeLists.txt). Each fragment is the body of a function after this header.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <agentskills/agentskills.hpp>

namespace as = agentskills;

// The host's side.
extern std::shared_ptr<as::Model> my_model;
extern as::Tool read_tool;
extern as::RunnerHooksPtr my_hooks;
extern std::string my_instructions;
extern std::string base_system_prompt;
extern std::string conversation_id;
extern std::vector<as::ToolSpec> my_tools;
extern std::function<std::size_t(std::string_view)> my_token_counter;
extern as::AgentDescriptor descriptor;
extern nlohmann::json response;
extern std::vector<nlohmann::json> blocks;
struct HostToolCall {  // a tool call as the host's own provider client hands it over
    std::string id;
    std::string arguments_json;
};
extern HostToolCall call;
// A store of the host's own over its database (docs/shim.md, "Writing a store of your own").
class MyRedisStore final : public as::ActivationStore {
public:
    MyRedisStore(const std::string& url, const std::string& conversation);
    [[nodiscard]] as::ClaimResult claim(std::string_view name) override;
    void confirm(std::string_view name) override;
    void roll_back(std::string_view name) override;
    [[nodiscard]] std::vector<std::string> active_names() const override;
    [[nodiscard]] bool prompt_delivered() const override;
    bool mark_prompt_delivered() override;
};
extern std::string redis_url;
extern std::string run_id;
void show_warning(const std::string& message);
void send_to_agent(const std::string& text);
void log_change(const as::CatalogChangeSet& changes);
void audit(const std::string& agent, const std::string& call_id, const std::string& arguments);
void mark_as_error(const HostToolCall& call);
void reply_to_model(const std::string& call_id, const std::string& text);
void put_back(const std::string& text);
void note_left_out(const std::vector<std::string>& names);
std::string run_my_tool(const as::ToolCall& call);

// Made by an earlier block of the same guide.
extern std::shared_ptr<as::FilesystemSkillLoader> loader;
extern as::SkillCatalogPtr catalog;
extern std::shared_ptr<as::SkillsShim> skills;
extern const as::SkillActivator core;
extern as::MemoryActivationStore store;
extern as::PreparedTurn turn;
