// Fuzz target: the arguments of the activation tool (SkillActivator::activate), the JSON text a
// model writes. activate reads them with nlohmann's SAX parser, without a JSON tree. This target
// holds that reading to the tree's: for every input, the result's status and text are the ones
// that json::parse's tree gives (not JSON, not an object, `name` missing, `name` not a non-empty
// string, or the activation of the last `name` member), and it aborts on any difference.
#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

class FixedLoader final : public SkillLoader {
public:
    Discovery discover() override {
        Discovery d;
        for (const char* name : {"pdf-forms", "release-notes"}) d.skills.push_back(make(name).manifest);
        return d;
    }
    LoadedSkill load(std::string_view name) override {
        for (const char* n : {"pdf-forms", "release-notes"}) {
            if (names_equal(n, name)) return make(n);
        }
        throw NotFoundError(std::string(name));
    }

private:
    static LoadedSkill make(const std::string& name) {
        LoadedSkill s;
        s.manifest.name = name;
        s.manifest.description = "About " + name + ".";
        s.manifest.root = "lib/" + name;
        s.manifest.skill_file = "lib/" + name + "/SKILL.md";
        s.instructions = "Do " + name + ".";
        return s;
    }
};

const SkillActivator& activator() {
    static const SkillActivator core(discover_skill_catalog(std::make_shared<FixedLoader>()));
    return core;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    MemoryActivationStore store;
    const ActivationResult got = activator().activate(store, text);

    // The same decision from the tree.
    MemoryActivationStore tree_store;
    const nlohmann::json args = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    ActivationResult want;
    if (args.is_object()) {
        auto it = args.find("name");
        if (it != args.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
            want = activator().activate_name(tree_store, it->get_ref<const std::string&>());
        } else {
            FUZZ_CHECK(got.status == ActivationStatus::invalid_arguments);
            const bool missing = it == args.end();
            FUZZ_CHECK((got.text.find("is missing") != std::string::npos) == missing);
            FUZZ_CHECK((got.text.find("must be a non-empty string") != std::string::npos) == !missing);
            return 0;
        }
    } else {
        FUZZ_CHECK(got.status == ActivationStatus::invalid_arguments);
        FUZZ_CHECK((got.text.find("not valid JSON") != std::string::npos) == args.is_discarded());
        FUZZ_CHECK((got.text.find("not a JSON object") != std::string::npos) == !args.is_discarded());
        return 0;
    }
    FUZZ_CHECK(got.status == want.status);
    FUZZ_CHECK(got.text == want.text);
    FUZZ_CHECK(got.name == want.name);
    return 0;
}
