// SPDX-License-Identifier: MIT
// ModelRegistry::held: the copy someone holds, never a load (the Mechanisms tab's jobs read the open model with it).
#include "model/model_loader.h"
#include "service/model_registry.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

TEST(ModelRegistry, HeldReturnsTheOpenCopyAndNeverLoads)
{
    int loads = 0;
    ModelRegistry registry([&loads](const ModelSource& source) -> std::shared_ptr<const Model> {
        ++loads;
        return loadModel(source);
    });
    const ModelSource source = probeModel(test::sharedPath("models/stories260K/stories260K.bin"));
    EXPECT_EQ(registry.held(source), nullptr); // nothing open yet, and asking opens nothing
    EXPECT_EQ(loads, 0);
    std::shared_ptr<const Model> model = registry.model(source);
    EXPECT_EQ(registry.held(source), model);
    EXPECT_EQ(loads, 1);
    model.reset();
    EXPECT_EQ(registry.held(source), nullptr); // the last holder let go: it stays closed
    EXPECT_EQ(loads, 1);
}

} // namespace
} // namespace attn
