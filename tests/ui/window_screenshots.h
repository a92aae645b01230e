// SPDX-License-Identifier: MIT
#pragma once
#include <QString>
#include <QWidget>

namespace attn::test {

/// AS_INTERVENTION_SCREENSHOTS=DIR (unset: nothing): `window` as it is now at 1024x700 and 1280x800, saved as
/// DIR/<name>-WxH.png for a person to look at.
void saveScreenshots(QWidget& window, const QString& name);

} // namespace attn::test
