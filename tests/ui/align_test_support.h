// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment_panel.h"

#include <QSignalSpy>

namespace attn::test {

/// Runs `change` on `panel` (an alignment, a step, another hypothesis or aggregation) and waits until the panel has
/// shown its outcome: the word matrix is derived on the engine thread, so it arrives after the call. Returns whether
/// it did within `timeoutMs`.
template <class Change> bool showAndWait(ui::AlignmentPanel& panel, Change&& change, int timeoutMs = 30000)
{
    QSignalSpy shown(&panel, &ui::AlignmentPanel::shown);
    change();
    return !shown.isEmpty() || shown.wait(timeoutMs);
}

} // namespace attn::test
