// SPDX-License-Identifier: MIT
#include "engine_test_support.h"

#include "backend/backend.h"
#include "controller/engine_controller.h"

#include <QTest>

#include <gtest/gtest.h>

#include <optional>

namespace attn::test {

uint64_t engineSubmits(ui::EngineController& engine, QObject* client)
{
    std::optional<uint64_t> submits;
    engine.post<uint64_t>(
        client,
        [](EngineContext& context) { return context.backend() ? context.backend()->traffic().submits : uint64_t(0); },
        [&](uint64_t n) { submits = n; }, {});
    EXPECT_TRUE(QTest::qWaitFor([&] { return submits.has_value(); }, 10000));
    return submits.value_or(0);
}

} // namespace attn::test
