// SPDX-License-Identifier: MIT
// .npy reading in Fortran order (numpy's np.save of a Fortran-contiguous array): values come back in C order.
#include "core/error.h"
#include "core/npy.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <fstream>

namespace attn {
namespace {

const std::string kDir = std::string(AS_SOURCE_DIR) + "/tests/data/npy-fortran/"; // tools/make_npy_fortran.py

TEST(NpyFortranOrder, Float32ThreeDimensionalComesBackInCOrder)
{
    const Tensor t = readNpy(kDir + "f4_2x3x4.npy");
    ASSERT_EQ(t.shape(), (Shape { 2, 3, 4 }));
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
            for (int64_t k = 0; k < 4; ++k)
                EXPECT_EQ(t.data()[(i * 3 + j) * 4 + k], static_cast<float>(100 * i + 10 * j + k)) << i << j << k;
}

TEST(NpyFortranOrder, Int64AndFloat64)
{
    Shape shape;
    const std::vector<int64_t> ints = readNpyInts(kDir + "i8_3x2.npy", &shape);
    ASSERT_EQ(shape, (Shape { 3, 2 }));
    EXPECT_EQ(ints, (std::vector<int64_t> { 0, 1, 10, 11, 20, 21 }));
    const Tensor d = readNpy(kDir + "f8_2x5.npy");
    ASSERT_EQ(d.shape(), (Shape { 2, 5 }));
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 5; ++j)
            EXPECT_EQ(d.data()[i * 5 + j], static_cast<float>(10 * i + j));
}

TEST(NpyFortranOrder, WhisperGoldensStoredInFortranOrderRead)
{
    // encoder_hidden_states.00/.01 of the Whisper fixture are Fortran-order [50, 32]; .02 is C order.
    const std::string dir = test::sharedPath("fixtures/hf-tiny/whisper/golden/item0");
    for (const char* name : { "encoder_hidden_states.00.npy", "encoder_hidden_states.01.npy" }) {
        std::ifstream in(dir + "/" + name, std::ios::binary);
        std::string header(128, '\0');
        in.read(header.data(), 128);
        ASSERT_NE(header.find("'fortran_order': True"), std::string::npos) << name << " is no longer Fortran order";
        EXPECT_EQ(readNpy(dir + "/" + name).shape(), (Shape { 50, 32 }));
    }
}

TEST(NpyFortranOrder, MissingFortranOrderKeyIsAnError)
{
    const std::string dir = test::makeTempDir("npy-header");
    std::string dict = "{'descr': '<f4', 'shape': (1,), }";
    dict.append(64 - 10 - dict.size() - 1, ' ');
    dict += '\n';
    std::ofstream out(dir + "/bad.npy", std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(static_cast<char>(dict.size()));
    out.put('\0');
    out << dict;
    const float one = 1.0f;
    out.write(reinterpret_cast<const char*>(&one), sizeof one);
    out.close();
    EXPECT_THROW(readNpy(dir + "/bad.npy"), Error);
}

} // namespace
} // namespace attn
