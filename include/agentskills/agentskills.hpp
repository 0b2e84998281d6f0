// agentskills-cpp — umbrella header: everything a host needs.
#pragma once

#include "catalog.hpp"
#include "diagnostic_codes.hpp"
#include "diagnostics.hpp"
#include "errors.hpp"
#include "harness.hpp"
#include "host.hpp"
#include "loader.hpp"
#include "names.hpp"
#include "parser.hpp"
#include "prompt.hpp"
#include "reader.hpp"
#include "skill.hpp"
#include "skills_shim.hpp"
#include "substrate.hpp"
#include "text.hpp"
#include "version.hpp"
