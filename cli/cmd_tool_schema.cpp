// agentskills tool-schema — the activation tool in a provider's shape; agentskills tool-call —
// one tool call read in a provider's shape, written back with a tool result in the same shape.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/harness/tool_shapes.hpp>

#include "command.hpp"
#include "json_output.hpp"
#include "messages.hpp"

namespace agentskills::cli {
namespace {

std::vector<std::string> format_names() {
    std::vector<std::string> out;
    for (ToolFormat f : ALL_TOOL_FORMATS) out.emplace_back(to_string(f));
    return out;
}

void add_format_option(CLI::App* cmd, std::string* format) {
    cmd->add_option("--format", *format, "Provider shape: openai-chat, openai-responses, anthropic, gemini or mcp")
        ->check(CLI::IsMember(format_names()))
        ->capture_default_str();
}

/// The format a checked `--format` value names.
ToolFormat format_of(const std::string& name) {
    return tool_format_from_string(name).value_or(ToolFormat::openai_chat);
}

struct ToolSchemaArgs {
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    std::string format = "openai-chat";
    bool compact = false;
};

struct ToolCallArgs {
    std::string format = "openai-chat";
    std::string input;
    std::string content;
    bool error = false;
};

/// The whole of `path`, or of standard input when `path` is empty or "-"; nullopt when unreadable.
std::optional<std::string> read_input(const std::string& path) {
    if (path.empty() || path == "-") {
        return std::string{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int run_tool_call(const ToolCallArgs& args) {
    const std::optional<std::string> text = read_input(args.input);
    const std::string source =
        args.input.empty() || args.input == "-" ? "standard input" : fmt::format("the input file {}", args.input);
    if (!text) {
        print_error(fmt::format("cannot read {}", source));
        return exit_failure;
    }
    const nlohmann::json input = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (input.is_discarded()) {
        print_error(fmt::format("{} is not valid JSON", source));
        return exit_failure;
    }
    try {
        const ToolFormat format = format_of(args.format);
        const ToolCall call = parse_tool_call(format, input);
        const ToolResult result{
            .tool_call_id = call.id, .name = call.name, .content = args.content, .is_error = args.error};
        // --content comes from the command line: bytes that are not UTF-8 become U+FFFD.
        const auto replace = nlohmann::json::error_handler_t::replace;
        const std::string call_line = tool_call_json(format, call).dump(-1, ' ', false, replace);
        const std::string result_line = tool_result_json(format, result).dump(-1, ' ', false, replace);
        std::cout << call_line << '\n' << result_line << '\n';
    } catch (const ConfigurationError& e) {
        print_error(e.what());  // not a call of that shape: a failure about the input
        return exit_failure;
    }
    return exit_ok;
}

}  // namespace
void setup_tool_schema(CLI::App& app, int* status) {
    auto args = std::make_shared<ToolSchemaArgs>();
    auto* cmd = app.add_subcommand("tool-schema", "Print the JSON of the activation tool (the same for every library)");
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    add_format_option(cmd, &args->format);
    cmd->add_flag("--compact", args->compact, "One line instead of indented JSON");
    cmd->callback([args, status] {
        // The schema is the same for every library: no catalog is needed.
        const ToolSpec spec = activation_tool_spec(args->tool_name);
        const ToolFormat format = format_of(args->format);
        // Gemini's unit of a request's tools list is a Tool holding the declarations.
        const nlohmann::json j =
            format == ToolFormat::gemini ? tools_json(format, {spec})[0] : tool_spec_json(format, spec);
        print_json(j, args->compact ? -1 : 2);
        *status = exit_ok;
    });
}

void setup_tool_call(CLI::App& app, int* status) {
    auto args = std::make_shared<ToolCallArgs>();
    auto* cmd = app.add_subcommand("tool-call",
                                   "Read one tool call in a provider's shape (standard input or --input FILE); print "
                                   "it back in that shape, then a "
                                   "tool result for it (two JSON lines)");
    add_format_option(cmd, &args->format);
    cmd->add_option("--input", args->input, "Read the call from FILE instead of standard input");
    cmd->add_option("--content", args->content, "Text of the tool result");
    cmd->add_flag("--error", args->error, "Mark the result as an error");
    cmd->callback([args, status] { *status = run_tool_call(*args); });
}

}  // namespace agentskills::cli
