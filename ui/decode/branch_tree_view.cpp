// SPDX-License-Identifier: MIT
#include "decode/branch_tree_view.h"

#include "model/token_text.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kLaneHeight = 16;
constexpr int kMinLaneHeight = 8;
constexpr int kMargin = 3;
constexpr double kTreeShare = 0.55; // of the width: the lanes; the rest names each lane's tokens
constexpr int kTailChars = 48;

int64_t sharedPrefix(const std::vector<DecodeStepPtr>& a, const std::vector<DecodeStepPtr>& b)
{
    int64_t n = 0;
    while (n < static_cast<int64_t>(a.size()) && n < static_cast<int64_t>(b.size())
        && a[static_cast<size_t>(n)]->token.id == b[static_cast<size_t>(n)]->token.id)
        ++n;
    return n;
}

} // namespace

BranchTreeView::BranchTreeView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName("decodeBranchTree");
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Branches: forcing a token keeps the timeline it replaces; click a lane to go over to it"));
    hide();
}

void BranchTreeView::setTimelines(
    const std::vector<DecodeStepPtr>& current, const std::vector<std::vector<DecodeStepPtr>>& others)
{
    std::vector<const std::vector<DecodeStepPtr>*> placed { &current };
    m_lanes.assign(1, Lane { -1, -1, 0, static_cast<int64_t>(current.size()), {} });
    m_prompt = std::count_if(
        current.begin(), current.end(), [](const DecodeStepPtr& s) { return s->origin == TokenOrigin::Prompt; });
    m_longest = std::max<int64_t>(1, static_cast<int64_t>(current.size()));
    for (size_t b = 0; b < others.size(); ++b) {
        // A lane leaves the lane above it with which it shares the most positions.
        Lane lane { static_cast<int>(b), 0, 0, static_cast<int64_t>(others[b].size()), {} };
        for (size_t p = 0; p < placed.size(); ++p)
            if (const int64_t shared = sharedPrefix(others[b], *placed[p]); shared > lane.fork) {
                lane.fork = shared;
                lane.parent = static_cast<int>(p);
            }
        for (auto i = static_cast<size_t>(lane.fork); i < others[b].size(); ++i)
            lane.tail += displayToken(others[b][i]->token);
        m_longest = std::max(m_longest, lane.length);
        m_lanes.push_back(lane);
        placed.push_back(&others[b]);
    }
    m_hover = -1;
    setVisible(!others.empty());
    updateGeometry();
    update();
}

int BranchTreeView::laneHeight() const
{
    const auto n = static_cast<int>(m_lanes.size());
    return n <= kFullLanes ? kLaneHeight : std::max(kMinLaneHeight, kFullLanes * kLaneHeight / n);
}

QSize BranchTreeView::sizeHint() const
{
    const auto n = static_cast<int>(m_lanes.size());
    return QSize(400, 2 * kMargin + std::max(1, n) * laneHeight());
}

QSize BranchTreeView::minimumSizeHint() const
{
    return QSize(200, sizeHint().height());
}

QRect BranchTreeView::laneRect(int index) const
{
    return QRect(0, kMargin + index * laneHeight(), width(), laneHeight());
}

double BranchTreeView::xOf(int64_t position) const
{
    const double right = width() * kTreeShare;
    return kMargin + static_cast<double>(position) / static_cast<double>(m_longest) * (right - 2 * kMargin);
}

int BranchTreeView::laneAt(const QPoint& pos) const
{
    for (int i = 0; i < static_cast<int>(m_lanes.size()); ++i)
        if (laneRect(i).contains(pos)) return i;
    return -1;
}

void BranchTreeView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    // The prompt: every lane shares it, and no lane can fork inside it.
    p.fillRect(QRectF(xOf(0), 0, xOf(m_prompt) - xOf(0), height()), palette().alternateBase());
    const auto centre = [this](int lane) { return laneRect(lane).center().y() + 0.5; };
    const QColor shown = palette().highlight().color();
    const QColor other = palette().placeholderText().color();
    const int textLeft = static_cast<int>(width() * kTreeShare) + 2 * kMargin;
    for (int i = 0; i < static_cast<int>(m_lanes.size()); ++i) {
        const Lane& lane = m_lanes[static_cast<size_t>(i)];
        const double y = centre(i);
        const QColor color = i == 0 ? shown : i == m_hover ? palette().text().color() : other;
        p.setPen(QPen(color, i == 0 ? 3 : 2, Qt::SolidLine, Qt::RoundCap));
        const double from = xOf(lane.fork);
        if (lane.parent >= 0) { // an elbow down from the fork on its parent lane
            p.drawLine(QPointF(from, centre(lane.parent)), QPointF(from, y));
            p.setBrush(color);
            p.drawEllipse(QPointF(from, centre(lane.parent)), 2.5, 2.5);
        }
        p.drawLine(QPointF(from, y), QPointF(xOf(lane.length), y));
        QFont f = font();
        f.setBold(i == 0);
        p.setFont(f);
        p.setPen(i == 0 ? palette().text().color() : color);
        const QString text = i == 0 ? tr("shown: %1 tokens").arg(lane.length)
                                    : tr("at %1: %2").arg(lane.fork).arg(lane.tail.left(kTailChars).simplified());
        const QRect box(textLeft, laneRect(i).top(), width() - textLeft - kMargin, laneRect(i).height());
        p.drawText(
            box, Qt::AlignLeft | Qt::AlignVCenter, QFontMetrics(f).elidedText(text, Qt::ElideRight, box.width()));
    }
}

void BranchTreeView::mouseMoveEvent(QMouseEvent* event)
{
    const int lane = laneAt(event->pos());
    if (lane != m_hover) {
        m_hover = lane;
        update();
    }
    if (lane < 0) return;
    const Lane& l = m_lanes[static_cast<size_t>(lane)];
    setToolTip(lane == 0 ? tr("The timeline shown (%1 tokens)").arg(l.length)
                         : tr("Forked at position %1 (%2 tokens): %3\nClick to go over to it; the timeline shown "
                              "stays here as a branch")
                               .arg(l.fork)
                               .arg(l.length)
                               .arg(l.tail.left(200)));
}

void BranchTreeView::leaveEvent(QEvent*)
{
    m_hover = -1;
    update();
}

void BranchTreeView::mousePressEvent(QMouseEvent* event)
{
    const int lane = laneAt(event->pos());
    if (lane > 0) emit branchActivated(m_lanes[static_cast<size_t>(lane)].branch);
}

} // namespace attn::ui
