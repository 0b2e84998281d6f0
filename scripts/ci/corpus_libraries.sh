# Sourced by the CI scripts that serve whole libraries (mcp.sh, mcp_client.sh, replicas.sh):
# `corpus_libraries REPO SHARED` sets the array `libraries` to tests/data/library and every library
# of SHARED/corpus/libraries, each at the folder that holds its skills (ComposioHQ's repository
# keeps 28 skills at its top and 832 in composio-skills/: both are served; openai's keeps three
# sets). A corpus library that is not in the list below, or a listed one that is missing, is an
# error (returns 1), so a new library is never left out silently. Without the shared folder, only
# tests/data/library.
corpus_libraries() {
  local repo=$1 shared=$2 lib dir name
  local corpus=(anthropics__skills/skills getsentry__skills/skills obra__superpowers/skills
    openai__skills/skills/.curated openai__skills/skills/.system openai__skills/skills/.experimental
    vercel-labs__agent-skills/skills K-Dense-AI__claude-scientific-skills/scientific-skills
    github__awesome-copilot/skills ComposioHQ__awesome-claude-skills ComposioHQ__awesome-claude-skills/composio-skills)
  libraries=("$repo/tests/data/library")
  [ -d "$shared/corpus/libraries" ] || return 0
  for lib in "${corpus[@]}"; do
    if [ ! -d "$shared/corpus/libraries/$lib" ]; then
      echo "corpus_libraries: $shared/corpus/libraries/$lib is missing" >&2
      return 1
    fi
    libraries+=("$shared/corpus/libraries/$lib")
  done
  for dir in "$shared/corpus/libraries"/*/; do
    name=$(basename "$dir")
    case " ${corpus[*]} " in
      *" $name"[/\ ]*) ;;
      *) echo "corpus_libraries: the corpus library $name is not in scripts/ci/corpus_libraries.sh" >&2; return 1 ;;
    esac
  done
}
