// own_loop — a foreign agent loop that uses only the activation core and a shared store: SQLite,
// or PostgreSQL when built with agentskills::postgres.
//
//   own_loop --state FILE|postgresql://... --root DIR [--conversation ID] [--load-delay-ms N] NAME...
//
// Activates each NAME once in the conversation stored in FILE, or in the PostgreSQL database a
// libpq URI (`postgresql://` or `postgres://`) names (shared by every process that opens it) and prints one line per
// result: `content NAME`, `already NAME`, `unknown NAME`, `invalid NAME` or `error NAME: MESSAGE`. Eight copies started
// at once on one fresh FILE with the same NAME print exactly one `content` line in total. `--load-delay-ms` slows every
// load down (to widen the race in tests).
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/sqlite/sqlite_store.hpp>
#ifdef AGENTSKILLS_HAVE_POSTGRES
#include <agentskills/postgres/postgres_store.hpp>
#endif

namespace as = agentskills;

namespace {

/// Delays each load: stands in for skills on slow storage.
class SlowLoader final : public as::SkillLoader {
public:
    SlowLoader(as::SkillLoaderPtr inner, std::chrono::milliseconds delay) : inner_(std::move(inner)), delay_(delay) {}
    as::Discovery discover() override { return inner_->discover(); }
    as::LoadedSkill load(std::string_view name) override {
        std::this_thread::sleep_for(delay_);
        return inner_->load(name);
    }

private:
    as::SkillLoaderPtr inner_;
    std::chrono::milliseconds delay_;
};

int usage() {
    std::fputs(
        "usage: own_loop --state FILE|postgresql://... --root DIR [--conversation ID] [--load-delay-ms N] NAME...\n",
        stderr);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string state;
    std::string root;
    std::string conversation = "default";
    long delay_ms = 0;
    std::vector<std::string> names;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (arg == "--state") {
            state = value();
        } else if (arg == "--root") {
            root = value();
        } else if (arg == "--conversation") {
            conversation = value();
        } else if (arg == "--load-delay-ms") {
            delay_ms = std::stol(value());
        } else if (!arg.empty() && arg[0] == '-') {
            return usage();
        } else {
            names.push_back(arg);
        }
    }
    if (state.empty() || root.empty() || names.empty()) return usage();

    try {
        // Discovery once per process; the conversation's state lives in the database file.
        as::SkillLoaderPtr loader = std::make_shared<as::FilesystemSkillLoader>(
            as::FilesystemLoaderOptions{.roots = {root}, .include_default_roots = false});
        if (delay_ms > 0) loader = std::make_shared<SlowLoader>(loader, std::chrono::milliseconds(delay_ms));
        const as::SkillActivator core(as::discover_skill_catalog(loader));
        std::unique_ptr<as::ActivationStore> opened;
        if (state.rfind("postgresql://", 0) == 0 || state.rfind("postgres://", 0) == 0) {
#ifdef AGENTSKILLS_HAVE_POSTGRES
            opened = std::make_unique<as::PostgresActivationStore>(
                state, as::PostgresStoreOptions{.conversation = conversation});
#else
            std::fputs("own_loop: built without agentskills::postgres (AGENTSKILLS_POSTGRES=OFF)\n", stderr);
            return 1;
#endif
        } else {
            opened = std::make_unique<as::SqliteActivationStore>(state,
                                                                 as::SqliteStoreOptions{.conversation = conversation});
        }
        as::ActivationStore& store = *opened;

        // A real loop would send this to its model; the block is the same at every turn.
        const std::string system_prompt = "You are a careful assistant.\n\n" + core.prompt_block();
        (void)system_prompt;

        for (const auto& name : names) {
            // What the model's tool call carries: raw JSON arguments.
            const std::string arguments = nlohmann::json{{"name", name}}.dump();
            const as::ActivationResult r = core.activate(store, arguments);
            switch (r.status) {
                case as::ActivationStatus::content:
                    std::printf("content %s\n", r.name.c_str());
                    break;
                case as::ActivationStatus::already_active:
                    std::printf("already %s\n", r.name.c_str());
                    break;
                case as::ActivationStatus::unknown_name:
                    std::printf("unknown %s\n", r.requested.c_str());
                    break;
                case as::ActivationStatus::invalid_arguments:
                    std::printf("invalid %s\n", name.c_str());
                    break;
                case as::ActivationStatus::load_error:
                    std::printf("error %s: %s\n", r.name.c_str(), r.error.c_str());
                    break;
            }
            // r.text is what goes back to the model as the tool result.
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "own_loop: %s\n", e.what());
        return 1;
    }
    return 0;
}
