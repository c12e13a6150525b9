// The three parts the IDE's Session composes, each on its own and without
// the worker or any widget: the document (a failed compile keeps the last
// good program, out of date; directives rewritten), the case (values kept
// and clamped across recompiles, named cases added, renamed, switched and
// saved beside the file) and the timeline (a snapshot placed on its event
// log counts no step twice; steps clamp; both states of a step).
#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "base/atomic_file.h"
#include "views/case_state.h"
#include "views/document.h"
#include "views/engine.h"
#include "views/timeline_state.h"
#include "views_test_paths.h"

using namespace tc;
using namespace tc::views;

namespace {

const char* kGood = "def f(a, x):\n    y = x * 2.5\n    return y + a\n";
const char* kBroken = "def f(a, x):\n    y = x * \n    return y + a\n";

CompileResult compile(const QString& text) { return compile_source(text.toStdString(), "f.py", ""); }

void apply(Document& doc, const QString& text) {
  const CompileResult r = compile(text);
  std::vector<int> layers;
  if (r.program) layers = schedule_layers(*r.program);
  doc.applyCompile(r, text, std::move(layers));
}

std::string read_text(const QString& path) {
  auto t = read_file(path.toStdString());
  return t.ok() ? *t : std::string();
}

}  // namespace

class SessionPartsTest : public QObject {
  Q_OBJECT
 private slots:
  // --- document --------------------------------------------------------------
  void aFailedCompileKeepsTheLastGoodProgramOutOfDate() {
    Document doc;
    doc.openSource(QStringLiteral("/tmp/f.py"), QString::fromLatin1(kGood));
    QVERIFY(!doc.upToDate());
    QVERIFY(doc.outOfDateReason().contains(QLatin1String("nothing is compiled")));
    apply(doc, QString::fromLatin1(kGood));
    QVERIFY(doc.upToDate());
    QVERIFY(doc.outOfDateReason().isEmpty());
    const auto good = doc.program();
    QVERIFY(good);
    QCOMPARE(doc.inputs().size(), std::size_t(2));
    QCOMPARE(doc.layers().size(), good->nodes.size());
    QVERIFY(!doc.nodesOnLine(2).empty());

    // Typed but not compiled yet: out of date, with the reason to compile.
    QVERIFY(doc.setSource(QString::fromLatin1(kBroken)));
    QVERIFY(!doc.setSource(QString::fromLatin1(kBroken)));  // no change
    QVERIFY(!doc.upToDate());
    QVERIFY(!doc.compileFailed());
    QVERIFY(doc.outOfDateReason().contains(QLatin1String("compile it first")));

    // The broken compile arrives: the last good program, inputs and layers stay.
    const CompileResult bad = compile(QString::fromLatin1(kBroken));
    QVERIFY(!bad.program);
    QVERIFY(!doc.applyCompile(bad, QString::fromLatin1(kBroken), {}));
    QVERIFY(doc.compileFailed());
    QCOMPARE(doc.program(), good);
    QCOMPARE(doc.inputs().size(), std::size_t(2));
    QCOMPARE(doc.layers().size(), good->nodes.size());
    QVERIFY(!doc.diagnostics().empty());
    QVERIFY(doc.outOfDateReason().contains(QLatin1String("does not compile")));
    QCOMPARE(doc.compileCount(), 2);

    // Fixed again: a new program, up to date.
    QVERIFY(doc.setSource(QString::fromLatin1(kGood)));
    apply(doc, QString::fromLatin1(kGood));
    QVERIFY(doc.upToDate());
    QVERIFY(!doc.compileFailed());
    QVERIFY(doc.program() != good);
  }

  // Issue 38 polish: whole numbers in plain digits (int32 bounds read
  // "-1e+06"), everything else in the shortest form that reads back.
  void numbersAreShownInPlainDigitsWhenWhole() {
    QCOMPARE(format_number(-1000000.0), std::string("-1000000"));
    QCOMPARE(format_number(2147483647.0), std::string("2147483647"));
    QCOMPARE(format_number(1e20), std::string("1e+20"));
    QCOMPARE(format_number(0.1), std::string("0.1"));
    QCOMPARE(format_number(-0.0), std::string("-0"));
    QCOMPARE(format_number(1.5e-7), std::string("1.5e-07"));
    QCOMPARE(format_number(-1.0 / 0.0), std::string("-inf"));
  }

  void domainsAreRewrittenAsDirectivesButNotInArtifacts() {
    Document doc;
    doc.openSource(QString(), QString::fromLatin1(kGood));
    QCOMPARE(doc.fileName(), std::string("untitled.py"));
    apply(doc, QString::fromLatin1(kGood));
    const auto text = doc.rewriteDomain("a", Domain::int32(-5, 5));
    QVERIFY(text);
    QVERIFY2(text->contains(QLatin1String("# tensorcode: input a=int32:-5:5")), qPrintable(*text));
    QCOMPARE(doc.source(), *text);
    QVERIFY(!doc.upToDate());  // the rewritten source needs a compile

    Document art;
    art.openArtifact(tc_views_paths::under(tc_views_paths::examples(), "gated.json"));
    QVERIFY(art.readOnly());
    QVERIFY(!art.setSource(QStringLiteral("x")));
    QVERIFY(!art.rewriteDomain("a", Domain::int32(0, 1)));
    QVERIFY(art.upToDate());
    QVERIFY(!art.compileFailed());
  }

  // --- case ------------------------------------------------------------------
  void valuesSurviveRecompilesClampedIntoTheirDomain() {
    CaseState cs;
    cs.reset();
    cs.setValue("a", 7.6, nullptr);
    cs.setValue("x", 1.3, nullptr);
    cs.adoptInputs({{"a", Domain::int32(-3, 3), true}, {"x", Domain::float64(), false}, {"n", Domain::float64(1, 2), false}});
    QCOMPARE(cs.current().at("a"), 3.0);  // rounded and clamped
    QCOMPARE(cs.current().at("x"), 1.3);
    QCOMPARE(cs.current().at("n"), 1.0);  // new: zero, clamped into [1, 2]
    // An input renamed away and back keeps its value.
    cs.adoptInputs({{"a", Domain::int32(-3, 3), true}});
    cs.adoptInputs({{"a", Domain::int32(-3, 3), true}, {"x", Domain::float64(), false}});
    QCOMPARE(cs.current().at("x"), 1.3);
    // The current case holds the current inputs only; the others wait, noted.
    cs.adoptInputs({{"a", Domain::int32(-3, 3), true}});
    QVERIFY(!cs.current().count("x"));
    QCOMPARE(cs.ignoredNames(), (std::vector<std::string>{"n", "x"}));

    QVERIFY(!cs.setTemperature(-1.0));
    QVERIFY(!cs.setTemperature(1.0));  // unchanged
    QVERIFY(cs.setTemperature(2.0));
    QVERIFY(cs.setOutputIndex(3));
    cs.fitOutputIndex(2);
    QCOMPARE(cs.outputIndex(), 0);
  }

  void namedCasesAreAddedRenamedSwitchedAndSaved() {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("f.py.cases.json"));
    CaseState cs;
    cs.loadBook(file, nullptr);
    QCOMPARE(cs.names(), QStringList{QStringLiteral("default")});
    cs.setValue("x", 1.0, nullptr);
    QVERIFY(!QFile::exists(file));  // one case: no file beside the source
    QVERIFY(!cs.add(QStringLiteral("default"), nullptr));  // taken
    QVERIFY(!cs.add(QStringLiteral("  "), nullptr));
    QVERIFY(cs.add(QStringLiteral("edge"), nullptr));
    QCOMPARE(cs.currentIndex(), 1);
    QVERIFY(cs.modified());
    QVERIFY(!QFile::exists(file));  // nothing is written before the document is saved
    cs.setValue("x", 5.0, nullptr);
    QVERIFY(cs.switchTo(0, nullptr));
    QCOMPARE(cs.current().at("x"), 1.0);
    QVERIFY(!cs.switchTo(0, nullptr));  // already current
    QVERIFY(!cs.switchTo(7, nullptr));
    QVERIFY(cs.switchTo(1, nullptr));
    QCOMPARE(cs.current().at("x"), 5.0);
    QVERIFY(!cs.rename(1, QStringLiteral("default")));
    QVERIFY(cs.rename(1, QStringLiteral("big")));
    QVERIFY(!QFile::exists(file));
    QVERIFY(cs.writeBook());
    QVERIFY(cs.saveProblem().isEmpty());
    QVERIFY(QFile::exists(file));
    QVERIFY(!cs.modified());

    CaseState again;
    again.loadBook(file, nullptr);
    QCOMPARE(again.names(), (QStringList{QStringLiteral("default"), QStringLiteral("big")}));
    QCOMPARE(again.currentIndex(), 1);
    QCOMPARE(again.current().at("x"), 5.0);

    // A broken file is ignored with a message, never half-read.
    QVERIFY(write_file_atomic(file.toStdString(), "{\"cases\": 3").ok());
    QString problem;
    CaseState broken;
    broken.loadBook(file, &problem);
    QVERIFY(problem.contains(QLatin1String("ignored")));
    QCOMPARE(broken.names(), QStringList{QStringLiteral("default")});
    QVERIFY(broken.current().empty());
  }

  // --- timeline --------------------------------------------------------------
  void aSnapshotPlacedOnItsLogCountsNoStepTwice() {
    auto program = load_artifact_file(tc_views_paths::under(tc_views_paths::examples(), "counter.json").toStdString());
    QVERIFY(program.ok());
    const std::string events = read_text(tc_views_paths::under(tc_views_paths::examples(), "counter_events.jsonl"));
    QVERIFY(!events.empty());
    Timeline tl;
    tl.openLog(tc_views_paths::under(tc_views_paths::examples(), "counter_events.jsonl"), events);
    QVERIFY(tl.logOpen());
    QCOMPARE(tl.logName(), std::string("counter_events.jsonl"));
    tl.setReplay(replay_events(**program, std::string(), events, tl.logName(), nullptr), 0);
    const Replay log = tl.replay();
    QCOMPARE(log.steps.size(), std::size_t(5));
    const double end = log.steps.back().state.at(0);

    // The state at step 3 as a snapshot, then the rest of the log from it.
    QVERIFY(tl.setStep(3));
    const auto at = tl.snapshotPoint();
    QVERIFY(at && at->steps == 3);
    auto snap = snapshot_text(**program, at);
    QVERIFY(snap.ok());
    Replay tail = replay_events(**program, *snap, events, tl.logName(), nullptr, 3);
    QCOMPARE(tail.steps.size(), std::size_t(2));
    const Replay placed = Timeline::placeOnLog(log, 3, std::move(tail));
    QCOMPARE(placed.steps.size(), std::size_t(5));
    QCOMPARE(placed.base_steps, log.base_steps);
    QCOMPARE(placed.steps.back().state.at(0), end);  // the same count at the end, not more
    for (std::size_t s = 0; s < 3; ++s) QCOMPARE(placed.steps[s].state, log.steps[s].state);
  }

  void stepsClampAndShowBothStatesOfAStep() {
    Replay r;
    r.state_names = {"count"};
    r.initial_state = {0};
    for (int s = 1; s <= 3; ++s) {
      StepRecord rec;
      rec.inputs = {{"event", 1.0}};
      rec.outputs = {static_cast<double>(s - 1)};
      rec.state = {static_cast<double>(s)};
      rec.values = {static_cast<double>(s - 1), s == 2 ? 0.0 : 1.0};
      r.steps.push_back(rec);
    }
    Timeline tl;
    const std::vector<double> fallback{42, 42};
    QVERIFY(!tl.showingStep());
    QCOMPARE(&tl.values(fallback), &fallback);
    tl.setReplay(r, 0);
    QVERIFY(!tl.showingStep());  // step 0: the case's own values
    QVERIFY(tl.setStep(10));
    QCOMPARE(tl.step(), 3);  // clamped
    QVERIFY(!tl.setStep(3));
    QVERIFY(tl.setStep(2));
    QCOMPARE(tl.stateBeforeStep(), std::vector<double>{1});  // what the step's event saw
    QCOMPARE(tl.stateAtStep(), std::vector<double>{2});      // what it committed
    QCOMPARE(tl.values(fallback), r.steps[1].values);
    QCOMPARE(tl.outputs(fallback), std::vector<double>{1});
    QCOMPARE(tl.inputs({}).at("event"), 1.0);
    QVERIFY(tl.setStep(1));
    QCOMPARE(tl.nextChange(1), 2);  // node 1: 1 -> 0 at step 2
    QVERIFY(tl.setStep(0));
    QCOMPARE(tl.stateAtStep(), std::vector<double>{0});

    // A snapshot off the log closes it and becomes the origin of the next one.
    tl.openLog(QStringLiteral("/tmp/e.jsonl"), "{\"event\": 1}\n");
    tl.restoreOffLog("{snapshot}");
    QVERIFY(!tl.logOpen());
    QCOMPARE(tl.origin(), std::string("{snapshot}"));
    QVERIFY(tl.dropReplay());
    QVERIFY(!tl.hasReplay());
    QCOMPARE(tl.origin(), std::string("{snapshot}"));
  }
};

QTEST_GUILESS_MAIN(SessionPartsTest)
#include "session_parts_test.moc"
