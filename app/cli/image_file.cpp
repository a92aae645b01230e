// SPDX-License-Identifier: MIT
#include "cli/image_file.h"

#include "core/error.h"

#ifdef AS_CLI_HAVE_QT_GUI
#include "vision/image_conversion.h"

#include <QString>
#endif

namespace attn::cli {

#ifdef AS_CLI_HAVE_QT_GUI

ImageBuffer readImageFile(const std::string& path)
{
    return ui::imageBufferFromQImage(ui::loadImageFile(QString::fromStdString(path)));
}

#else

ImageBuffer readImageFile(const std::string& path)
{
    throw Error(path,
        "this attnscope-cli was built without Qt (AS_BUILD_GUI=OFF) and cannot decode images; "
        "pass the preprocessed tensor with --pixel-values FILE.npy instead");
}

#endif

} // namespace attn::cli
