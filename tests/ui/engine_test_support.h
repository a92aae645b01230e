// SPDX-License-Identifier: MIT
#pragma once
#include <QObject>

#include <cstdint>

namespace attn::ui {
class EngineController;
}

namespace attn::test {

/// Submissions of `engine`'s backend so far (0 on the CPU), read on the engine thread after every job queued before
/// this call: what tells a tab's work on the backend chosen under View > Compute backend from work on the CPU.
/// `client` is the QObject the read is posted for.
uint64_t engineSubmits(ui::EngineController& engine, QObject* client);

} // namespace attn::test
