// SPDX-License-Identifier: MIT
// Workspace files (.attnscope): the strict parser, and a workspace that parses must survive being written and read
// back unchanged.
#include "fuzz_target.h"
#include "workspace/workspace.h"

#include <string>

AS_FUZZ_TARGET(workspace)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const attn::ui::Workspace workspace = attn::ui::workspaceFromJson(text, "input.attnscope");
    const std::string written = attn::ui::workspaceToJson(workspace);
    if (attn::ui::workspaceToJson(attn::ui::workspaceFromJson(written, "written workspace")) != written)
        __builtin_trap();
}
