// agentskills CLI — messages on standard error (messages.hpp).
#include "messages.hpp"

#include <atomic>
#include <cstdio>
#include <string>

#include <fmt/core.h>

#include "agentskills/base/text.hpp"

namespace agentskills::cli {
namespace {

std::string g_command;  // set while the subcommand's arguments are parsed, before it runs
bool g_quiet = false;
std::atomic<bool> g_printed{false};  // watch's threads print too

// One write per line (or per MessageBatch): lines of concurrent writers (watch's threads) never
// interleave.
void write_line(const std::string& line) {
    g_printed.store(true, std::memory_order_relaxed);
    std::fwrite(line.data(), 1, line.size(), stderr);
}

std::string prefix() { return g_command.empty() ? "agentskills" : "agentskills " + g_command; }

std::string note_line(std::string_view message) { return fmt::format("{}: {}\n", prefix(), terminal_text(message)); }

std::string diagnostic_line(const Diagnostic& d) { return format_diagnostic(d) + "\n"; }

bool shown(const Diagnostic& d) { return !g_quiet || d.severity == Severity::error; }

}  // namespace

void add_common_options(CLI::App& cmd) {
    cmd.add_flag("-q,--quiet", g_quiet, "Print only errors on standard error (no warnings, notes or diagnostics)");
    CLI::App* self = &cmd;
    cmd.preparse_callback([self](std::size_t) { g_command = self->get_name(); });
}

std::string_view command_name() { return g_command; }

bool quiet() { return g_quiet; }

bool printed_anything() { return g_printed.load(std::memory_order_relaxed); }

void print_error(std::string_view message) { print_error_as(prefix(), message); }

void print_error_as(std::string_view command_path, std::string_view message) {
    write_line(fmt::format("{}: error: {}\n", command_path, terminal_text(message)));
}

void print_warning(std::string_view message) {
    if (!g_quiet) write_line(fmt::format("{}: warning: {}\n", prefix(), terminal_text(message)));
}

void print_note(std::string_view message) {
    if (!g_quiet) write_line(note_line(message));
}

void print_diagnostic(const Diagnostic& d) {
    if (shown(d)) write_line(diagnostic_line(d));
}

void MessageBatch::note(std::string_view message) {
    if (!g_quiet) text_ += note_line(message);
}

void MessageBatch::diagnostic(const Diagnostic& d) {
    if (shown(d)) text_ += diagnostic_line(d);
}

void MessageBatch::flush() noexcept {
    if (text_.empty()) return;
    write_line(text_);
    text_.clear();
}

}  // namespace agentskills::cli
