#include "views/ide_app.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "views/comparison.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"

namespace tc {
namespace views {

bool install_translation(QCoreApplication& app, const QString& language) {
  QString lang = language;
  if (lang.isEmpty()) lang = QSettings().value(QStringLiteral("language")).toString();
  const QLocale locale = lang.isEmpty() ? QLocale() : QLocale(lang);
  if (locale.language() == QLocale::English || locale.language() == QLocale::C) return false;
  auto* ours = new QTranslator(&app);
  if (!ours->load(locale, QStringLiteral("tensorcode"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
    delete ours;
    return false;
  }
  QCoreApplication::installTranslator(ours);
  // Qt's own strings (standard dialogs, buttons) when the system has them.
  auto* qt = new QTranslator(&app);
  if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(qt);
  else
    delete qt;
  return true;
}

int run_ide(int argc, char** argv) {
  // A screenshot needs no display: without one, render offscreen rather than abort.
  bool screenshot_mode = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--screenshot", 12) == 0) screenshot_mode = true;
  if (screenshot_mode && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM") && !qEnvironmentVariableIsSet("DISPLAY") &&
      !qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("tensorcode"));
  QApplication::setApplicationName(QStringLiteral("tensorcode-ide"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tensorcode.svg")));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("tensorcode IDE: author, run, verify, inspect gradients, replay events, export"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Open FILE, compile, run the default case, select the output node, write a PNG of the window to OUT and exit."),
                                QStringLiteral("OUT.png"));
  QCommandLineOption lang(QStringLiteral("lang"), QStringLiteral("User interface language (en, de); overrides the setting."),
                          QStringLiteral("LANG"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1280x800)."),
                          QStringLiteral("WxH"), QStringLiteral("1280x800"));
  QCommandLineOption timing(QStringLiteral("timing"), QStringLiteral("Print how long opening and laying out FILE took."));
  QCommandLineOption events(QStringLiteral("events"), QStringLiteral("Open this event log in the timeline after FILE."),
                            QStringLiteral("EVENTS.jsonl"));
  QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select this node (id or name) instead of the output."),
                            QStringLiteral("NODE"));
  QCommandLineOption step(QStringLiteral("step"), QStringLiteral("Move the timeline to this step (with --events)."),
                          QStringLiteral("N"));
  QCommandLineOption neighbourhood(QStringLiteral("neighbourhood"), QStringLiteral("Show the Neighbourhood tab (Graphviz around the selection)."));
  QCommandLineOption compare(QStringLiteral("compare"),
                             QStringLiteral("Compare FILE with OTHER (a .json artifact or a .py source), as File > Compare with Artifact."),
                             QStringLiteral("OTHER"));
  QCommandLineOption setInput(QStringLiteral("set"), QStringLiteral("Set input NAME of the current case to VALUE (repeatable)."),
                              QStringLiteral("NAME=VALUE"));
  QCommandLineOption pinThenSet(QStringLiteral("pin-then-set"),
                                QStringLiteral("Pin the run of FILE's case (Run > Pin This Run), then set input NAME to VALUE (repeatable)."),
                                QStringLiteral("NAME=VALUE"));
  QCommandLineOption openGroup(QStringLiteral("open-group"),
                               QStringLiteral("Open the circuit's group with this label (\"line 7\", \"line 7 · i=3\"; repeatable, in order) and fit."),
                               QStringLiteral("LABEL"));
  parser.addOptions({screenshot, lang, size, timing, events, select, step, neighbourhood, compare, setInput, pinThenSet, openGroup});
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A .py source or a .json artifact to open."));
  parser.process(app);

  install_translation(app, parser.value(lang));
  const QStringList files = parser.positionalArguments();
  const bool shot = parser.isSet(screenshot);
  if (shot) {
    // Screenshots must not depend on the user's remembered layout.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QDir::tempPath() + QStringLiteral("/tensorcode-ide-screenshot"));
  }
  if (shot && files.isEmpty()) {
    std::fprintf(stderr, "error: --screenshot needs a FILE to open\n");
    return 2;
  }

  MainWindow window;
  if (shot) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1280, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 800);
  }
  window.show();
  QElapsedTimer clock;
  clock.start();
  qint64 shown = -1;  // when the circuit view first had its layout
  double shown_cpu = 0;  // process CPU seconds by then: the figure without other load on the machine
  const std::clock_t cpu0 = std::clock();
  QObject::connect(window.graph(), &GraphView::layoutFinished, &window, [&shown, &shown_cpu, &clock, cpu0](double, bool) {
    if (shown >= 0) return;
    shown = clock.elapsed();
    shown_cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  });
  if (!files.isEmpty() && !window.openPath(files.front())) {
    std::fprintf(stderr, "error: cannot open %s\n", qPrintable(files.front()));
    if (shot) return 3;
  }
  if (files.isEmpty()) {
    // Something that compiles at once, so a first start shows every view working.
    window.session()->newDocument(QStringLiteral(
        "# tensorcode: input x=float64:-10:10\n"
        "def f(x):\n"
        "    return relu(x) if x > 0 else 0.5 * x\n"));
  }
  if (parser.isSet(events) && window.waitUntilSettled(120000)) {
    QString err;
    if (!window.session()->loadEvents(parser.value(events), &err)) std::fprintf(stderr, "error: %s\n", qPrintable(err));
    window.raiseDock(QStringLiteral("TimelineDock"));
  }
  if (!shot) return QApplication::exec();

  const bool settled = window.waitUntilSettled(120000);
  const qint64 ready = clock.elapsed();
  if (!settled) {
    std::fprintf(stderr, "error: %s did not settle within 120 s\n", qPrintable(files.front()));
    return 3;
  }
  if (parser.isSet(timing)) {
    const auto p = window.session()->program();
    const auto* g = window.graph()->graphLayout();
    std::fprintf(stderr,
                 "%s: %zu nodes; circuit drawn %lld ms after open (%.0f ms of CPU; layout %.0f ms, %s); everything settled at %lld ms\n",
                 qPrintable(QFileInfo(files.front()).fileName()), p ? p->nodes.size() : std::size_t{0},
                 static_cast<long long>(shown), shown_cpu * 1000.0, g ? g->milliseconds : 0.0, g && g->graphviz ? "graphviz" : "layered",
                 static_cast<long long>(ready));
  }
  if (parser.isSet(neighbourhood)) window.showNeighbourhood();
  if (parser.isSet(step)) window.session()->setStep(parser.value(step).toInt());
  // --set and --pin-then-set: NAME=VALUE items into the current case.
  auto setCase = [&](const QCommandLineOption& option) {
    Case c = window.session()->currentCase();
    for (const QString& item : parser.values(option)) {
      const auto eq = item.indexOf(QLatin1Char('='));
      bool ok = false;
      const double v = eq > 0 ? item.mid(eq + 1).toDouble(&ok) : 0.0;
      if (!ok) {
        std::fprintf(stderr, "error: --%s %s: give NAME=VALUE\n", qPrintable(option.names().front()), qPrintable(item));
        return false;
      }
      c[item.left(eq).toStdString()] = v;
    }
    window.inputs()->applyCase(c);  // as typed into the Inputs panel, which shows it
    return window.waitUntilSettled(120000);
  };
  if (parser.isSet(setInput) && !setCase(setInput)) return 2;
  QString compareError;
  if (parser.isSet(compare) && !window.comparison()->compareWithFile(parser.value(compare), &compareError))
    std::fprintf(stderr, "error: %s\n", qPrintable(compareError));
  if (parser.isSet(pinThenSet)) {
    if (!window.comparison()->pinRun(&compareError)) std::fprintf(stderr, "error: %s\n", qPrintable(compareError));
    if (!setCase(pinThenSet)) return 2;
  }
  if (parser.isSet(compare)) window.waitUntilSettled(120000);
  // Groups opened as a click on their boxes does, each after the layout before it arrived.
  for (const QString& label : parser.values(openGroup)) {
    const GroupPlan* plan = window.graph()->groupPlan();
    int found = -1;
    for (std::size_t k = 0; plan && k < plan->groups.size() && found < 0; ++k)
      if (QString::fromStdString(plan->groups[k].label) == label) found = static_cast<int>(k);
    if (found < 0) {
      std::fprintf(stderr, "error: --open-group %s: the circuit has no such group (circuits above 1,000 nodes are grouped)\n",
                   qPrintable(label));
      return 2;
    }
    window.graph()->toggleGroup(found);
    window.waitUntilSettled(120000);
  }
  if (parser.isSet(openGroup)) window.graph()->fitAll();
  if (parser.isSet(select)) window.graph()->search(parser.value(select));
  else window.selectOutput();
  window.waitUntilSettled(120000);
  QApplication::processEvents();
  const QImage image = window.grab().toImage();
  if (!image.save(parser.value(screenshot), "PNG")) {
    std::fprintf(stderr, "error: cannot write %s\n", qPrintable(parser.value(screenshot)));
    return 3;
  }
  return 0;
}

}  // namespace views
}  // namespace tc
