<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>QMenu</name>
        <message>
            <source>Copy &amp;Value</source>
            <translation>&amp;Wert kopieren</translation>
        </message>
        <message>
            <source>Copy Node &amp;Id</source>
            <translation>Knoten-&amp;ID kopieren</translation>
        </message>
        <message>
            <source>Copy IR &amp;Line</source>
            <translation>IR-&amp;Zeile kopieren</translation>
        </message>
        <message>
            <source>Show in &amp;Source</source>
            <translation>Im &amp;Quelltext zeigen</translation>
        </message>
    </context>
    <context>
        <name>QObject</name>
        <message>
            <source>not computed</source>
            <translation>nicht berechnet</translation>
        </message>
        <message>
            <source>none</source>
            <translation>keine</translation>
        </message>
    </context>
    <context>
        <name>tc::views::ComparePanel</name>
        <message>
            <source>Stop Comparing</source>
            <translation>Vergleich beenden</translation>
        </message>
        <message>
            <source>Difference</source>
            <translation>Differenz</translation>
        </message>
        <message>
            <source>This side</source>
            <translation>Diese Seite</translation>
        </message>
        <message>
            <source>Other side</source>
            <translation>Andere Seite</translation>
        </message>
        <message>
            <source>Not comparing. File &gt; Compare with Artifact or Compare with Saved Version diffs the circuit with another one; Run &gt; Pin This Run keeps the current values to compare later runs and steps with.</source>
            <translation>Kein Vergleich. Datei &gt; Mit Artefakt vergleichen oder Mit gespeicherter Version vergleichen stellt die Schaltung einer anderen gegenüber; Ausführen &gt; Diesen Lauf für den Vergleich festhalten behält die aktuellen Werte, um spätere Läufe und Schritte damit zu vergleichen.</translation>
        </message>
        <message>
            <source>Comparing with %1…</source>
            <translation>Vergleich mit %1…</translation>
        </message>
        <message>
            <source>Compared with &lt;b&gt;%1&lt;/b&gt;: %2 changed, %3 added, %4 removed, %5 unchanged; %6 value(s) differ on this case.</source>
            <translation>Verglichen mit &lt;b&gt;%1&lt;/b&gt;: %2 geändert, %3 hinzugefügt, %4 entfernt, %5 unverändert; %6 Wert(e) weichen in diesem Fall ab.</translation>
        </message>
        <message>
            <source>… and %1 more</source>
            <translation>… und %1 weitere</translation>
        </message>
        <message>
            <source>Program</source>
            <translation>Programm</translation>
        </message>
        <message>
            <source>Inputs, parameters and state</source>
            <translation>Eingaben, Parameter und Zustand</translation>
        </message>
        <message>
            <source>Outputs</source>
            <translation>Ausgaben</translation>
        </message>
        <message>
            <source>output %1: %2</source>
            <translation>Ausgabe %1: %2</translation>
        </message>
        <message>
            <source>, same circuit</source>
            <translation>, gleiche Schaltung</translation>
        </message>
        <message>
            <source>, circuit changed</source>
            <translation>, Schaltung geändert</translation>
        </message>
        <message>
            <source>, differs on this case</source>
            <translation>, weicht in diesem Fall ab</translation>
        </message>
        <message>
            <source>, same value on this case</source>
            <translation>, gleicher Wert in diesem Fall</translation>
        </message>
        <message>
            <source>error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>Outputs (%1)</source>
            <translation>Ausgaben (%1)</translation>
        </message>
        <message>
            <source>Changed nodes</source>
            <translation>Geänderte Knoten</translation>
        </message>
        <message>
            <source>%1 changed (%2)</source>
            <translation>%1 geändert (%2)</translation>
        </message>
        <message>
            <source>Added nodes</source>
            <translation>Hinzugefügte Knoten</translation>
        </message>
        <message>
            <source>%1 added</source>
            <translation>%1 hinzugefügt</translation>
        </message>
        <message>
            <source>Removed nodes</source>
            <translation>Entfernte Knoten</translation>
        </message>
        <message>
            <source>%1 removed (fed %2 here)</source>
            <translation>%1 entfernt (speiste hier %2)</translation>
        </message>
        <message>
            <source>%1 removed</source>
            <translation>%1 entfernt</translation>
        </message>
        <message>
            <source>Values that differ on this case</source>
            <translation>Werte, die in diesem Fall abweichen</translation>
        </message>
        <message>
            <source>no differences</source>
            <translation>keine Unterschiede</translation>
        </message>
    </context>
    <context>
        <name>tc::views::Comparison</name>
        <message>
            <source>cannot open %1: %2</source>
            <translation>%1 kann nicht geöffnet werden: %2</translation>
        </message>
        <message>
            <source>the source does not compile</source>
            <translation>der Quelltext lässt sich nicht kompilieren</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Vergleich</translation>
        </message>
        <message>
            <source>cannot compare with %1: %2</source>
            <translation>Vergleich mit %1 nicht möglich: %2</translation>
        </message>
        <message>
            <source>an artifact has no saved versions: compare it with another artifact</source>
            <translation>ein Artefakt hat keine gespeicherten Versionen: vergleichen Sie es mit einem anderen Artefakt</translation>
        </message>
        <message>
            <source>the source has not been saved yet: nothing to compare with</source>
            <translation>der Quelltext wurde noch nicht gespeichert: nichts zum Vergleichen</translation>
        </message>
        <message>
            <source>%1 as saved</source>
            <translation>%1 wie gespeichert</translation>
        </message>
        <message>
            <source>the source does not compile: there is no run to pin</source>
            <translation>der Quelltext lässt sich nicht kompilieren: es gibt keinen Lauf zum Festhalten</translation>
        </message>
        <message>
            <source>no program: nothing to pin</source>
            <translation>kein Programm: nichts zum Festhalten</translation>
        </message>
        <message>
            <source>step %1</source>
            <translation>Schritt %1</translation>
        </message>
        <message>
            <source>pinned run (%1)</source>
            <translation>festgehaltener Lauf (%1)</translation>
        </message>
        <message>
            <source>added</source>
            <translation>hinzugefügt</translation>
        </message>
        <message>
            <source>changed</source>
            <translation>geändert</translation>
        </message>
        <message>
            <source>a removed node fed it</source>
            <translation>ein entfernter Knoten speiste ihn</translation>
        </message>
        <message>
            <source>value differs</source>
            <translation>Wert weicht ab</translation>
        </message>
        <message>
            <source>same</source>
            <translation>gleich</translation>
        </message>
        <message>
            <source>compared with &lt;b&gt;%1&lt;/b&gt;: %2</source>
            <translation>verglichen mit &lt;b&gt;%1&lt;/b&gt;: %2</translation>
        </message>
        <message>
            <source>(its constant %1 changed)</source>
            <translation>(seine Konstante %1 wurde geändert)</translation>
        </message>
        <message>
            <source>n/a</source>
            <translation>k. A.</translation>
        </message>
        <message>
            <source>this side: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; other side: no such node</source>
            <translation>diese Seite: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; andere Seite: kein solcher Knoten</translation>
        </message>
        <message>
            <source>this side: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; other side (%2): &lt;b&gt;%3&lt;/b&gt;</source>
            <translation>diese Seite: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; andere Seite (%2): &lt;b&gt;%3&lt;/b&gt;</translation>
        </message>
        <message>
            <source>not run</source>
            <translation>nicht ausgeführt</translation>
        </message>
        <message>
            <source>other side: &lt;tt&gt;%1&lt;/tt&gt;</source>
            <translation>andere Seite: &lt;tt&gt;%1&lt;/tt&gt;</translation>
        </message>
        <message>
            <source>compared with %1</source>
            <translation>verglichen mit %1</translation>
        </message>
    </context>
    <context>
        <name>tc::views::CompileOptionsDialog</name>
        <message>
            <source>Compile Options</source>
            <translation>Kompilieroptionen</translation>
        </message>
        <message>
            <source>The number type the circuit computes in</source>
            <translation>Der Zahlentyp, in dem die Schaltung rechnet</translation>
        </message>
        <message>
            <source>&amp;Dtype:</source>
            <translation>&amp;Datentyp:</translation>
        </message>
        <message>
            <source>Loop iterations the compiler may expand, all loops of the function together</source>
            <translation>Schleifendurchläufe, die der Compiler ausrollen darf, alle Schleifen der Funktion zusammen</translation>
        </message>
        <message>
            <source>Max &amp;iterations:</source>
            <translation>Max. &amp;Durchläufe:</translation>
        </message>
        <message>
            <source>Nodes the circuit may have</source>
            <translation>Knoten, die die Schaltung haben darf</translation>
        </message>
        <message>
            <source>Max &amp;nodes:</source>
            <translation>Max. &amp;Knoten:</translation>
        </message>
        <message>
            <source>Saved in the file as a '# tensorcode: compile' line.</source>
            <translation>In der Datei als Zeile '# tensorcode: compile' gespeichert.</translation>
        </message>
    </context>
    <context>
        <name>tc::views::EventListModel</name>
        <message>
            <source>%1  start: %2</source>
            <translation>%1  Start: %2</translation>
        </message>
        <message>
            <source>%1  {%2} → %3</source>
            <translation>%1  {%2} → %3</translation>
        </message>
        <message>
            <source>step %1, line %2 of the event log: click to go there</source>
            <translation>Schritt %1, Zeile %2 des Ereignisprotokolls: zum Hinspringen klicken</translation>
        </message>
    </context>
    <context>
        <name>tc::views::GraphView</name>
        <message>
            <source>not computed</source>
            <translation>nicht berechnet</translation>
        </message>
        <message>
            <source>  (yes)</source>
            <translation>  (ja)</translation>
        </message>
        <message>
            <source>  (no)</source>
            <translation>  (nein)</translation>
        </message>
        <message>
            <source>Select a node to see its neighbourhood.</source>
            <translation>Wählen Sie einen Knoten, um seine Nachbarschaft zu sehen.</translation>
        </message>
        <message>
            <source>No program: open a .py file or an artifact.</source>
            <translation>Kein Programm: Öffnen Sie eine .py-Datei oder ein Artefakt.</translation>
        </message>
        <message>
            <source>Laying out…</source>
            <translation>Layout wird berechnet…</translation>
        </message>
        <message>
            <source>neighbourhood of #%1: %2 nodes (Graphviz)</source>
            <translation>Nachbarschaft von #%1: %2 Knoten (Graphviz)</translation>
        </message>
        <message>
            <source>%1 nodes, Graphviz dot by schedule layer</source>
            <translation>%1 Knoten, Graphviz dot nach Schedule-Ebene</translation>
        </message>
        <message>
            <source>%1 nodes, layered layout by schedule layer</source>
            <translation>%1 Knoten, Ebenen-Layout nach Schedule-Ebene</translation>
        </message>
        <message>
            <source>   zoom %1%</source>
            <translation>   Zoom %1 %</translation>
        </message>
        <message>
            <source>No circuit: the source does not compile (see Problems).</source>
            <translation>Keine Schaltung: Der Quelltext lässt sich nicht kompilieren (siehe Probleme).</translation>
        </message>
        <message>
            <source>|value| by rank (− blue, + orange)</source>
            <translation>|Wert| nach Rang (− blau, + orange)</translation>
        </message>
        <message>
            <source>Out of date: the source does not compile (see Problems). This is the last circuit that compiled.</source>
            <translation>Veraltet: Der Quelltext lässt sich nicht kompilieren (siehe Probleme). Dies ist die letzte kompilierte Schaltung.</translation>
        </message>
        <message numerus="yes">
            <source>%n node(s)</source>
            <translation>
                <numerusform>%n Knoten</numerusform>
                <numerusform>%n Knoten</numerusform>
            </translation>
        </message>
        <message>
            <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 nodes, layers %3 to %4&lt;br&gt;click to open</source>
            <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 Knoten, Ebenen %3 bis %4&lt;br&gt;zum Öffnen klicken</translation>
        </message>
        <message>
            <source>iteration %1</source>
            <translation>Durchlauf %1</translation>
        </message>
        <message>
            <source>open: %1</source>
            <translation>geöffnet: %1</translation>
        </message>
        <message>
            <source>statement</source>
            <translation>Anweisung</translation>
        </message>
        <message>
            <source>loop iteration</source>
            <translation>Schleifendurchlauf</translation>
        </message>
        <message>
            <source>bands of schedule layers</source>
            <translation>Bändern von Schedule-Ebenen</translation>
        </message>
        <message>
            <source>, </source>
            <translation>, </translation>
        </message>
        <message>
            <source>%1 nodes in %2 boxes, grouped by %3 (click a group to open it)</source>
            <translation>%1 Knoten in %2 Kästen, gruppiert nach %3 (Gruppe zum Öffnen anklicken)</translation>
        </message>
        <message>
            <source>%1 nodes in %2 boxes, grouped by %3</source>
            <translation>%1 Knoten in %2 Kästen, gruppiert nach %3</translation>
        </message>
    </context>
    <context>
        <name>tc::views::InputsPanel</name>
        <message>
            <source>Function:</source>
            <translation>Funktion:</translation>
        </message>
        <message>
            <source>Parameter</source>
            <translation>Parameter</translation>
        </message>
        <message>
            <source>Type</source>
            <translation>Typ</translation>
        </message>
        <message>
            <source>Min</source>
            <translation>Min</translation>
        </message>
        <message>
            <source>Max</source>
            <translation>Max</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>Wert</translation>
        </message>
        <message>
            <source>no domain saved for this parameter: float64 over its full range</source>
            <translation>für diesen Parameter ist kein Wertebereich gespeichert: float64 über den ganzen Bereich</translation>
        </message>
        <message>
            <source>empty: the type's full range</source>
            <translation>leer: der ganze Bereich des Typs</translation>
        </message>
        <message>
            <source>%1: not a number</source>
            <translation>%1: keine Zahl</translation>
        </message>
        <message>
            <source>Outputs: %1</source>
            <translation>Ausgaben: %1</translation>
        </message>
        <message>
            <source>error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>Case:</source>
            <translation>Fall:</translation>
        </message>
        <message>
            <source>Named input cases, saved beside the file (FILE.cases.json)</source>
            <translation>Benannte Eingabefälle, neben der Datei gespeichert (DATEI.cases.json)</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>Hinzufügen</translation>
        </message>
        <message>
            <source>Keep the current values as a new named case</source>
            <translation>Die aktuellen Werte als neuen benannten Fall behalten</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Umbenennen</translation>
        </message>
        <message>
            <source>Add case</source>
            <translation>Fall hinzufügen</translation>
        </message>
        <message>
            <source>Name of the new case:</source>
            <translation>Name des neuen Falls:</translation>
        </message>
        <message>
            <source>case %1</source>
            <translation>Fall %1</translation>
        </message>
        <message>
            <source>a case named '%1' exists already</source>
            <translation>ein Fall namens '%1' existiert bereits</translation>
        </message>
        <message>
            <source>Rename case</source>
            <translation>Fall umbenennen</translation>
        </message>
        <message>
            <source>New name:</source>
            <translation>Neuer Name:</translation>
        </message>
        <message>
            <source>True when checked</source>
            <translation>True, wenn angekreuzt</translation>
        </message>
        <message>
            <source>a parameter: its stored value is the default; edits apply to this session's runs and cases</source>
            <translation>ein Parameter: sein gespeicherter Wert ist die Vorgabe; Änderungen gelten für die Läufe und Fälle dieser Sitzung</translation>
        </message>
        <message>
            <source>parameter</source>
            <translation>Parameter</translation>
        </message>
        <message>
            <source>Showing step %1 of the event log (its event's inputs and outputs); go to step %2 to edit the case.</source>
            <translation>Schritt %1 des Ereignisprotokolls (Ein- und Ausgaben seines Ereignisses); gehen Sie zu Schritt %2, um den Fall zu bearbeiten.</translation>
        </message>
    </context>
    <context>
        <name>tc::views::InspectorModel</name>
        <message>
            <source>Node</source>
            <translation>Knoten</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>Wert</translation>
        </message>
        <message>
            <source>Value (%1)</source>
            <translation>Wert (%1)</translation>
        </message>
        <message>
            <source>∂ exact</source>
            <translation>∂ exakt</translation>
        </message>
        <message>
            <source>∂ %1</source>
            <translation>∂ %1</translation>
        </message>
        <message>
            <source>Branch</source>
            <translation>Zweig</translation>
        </message>
        <message>
            <source>Interval</source>
            <translation>Intervall</translation>
        </message>
        <message>
            <source>yes</source>
            <translation>ja</translation>
        </message>
        <message>
            <source>no</source>
            <translation>nein</translation>
        </message>
        <message>
            <source>fails</source>
            <translation>scheitert</translation>
        </message>
        <message>
            <source>∂ chosen (exact)</source>
            <translation>∂ gewählt (exakt)</translation>
        </message>
        <message>
            <source>untaken branch: %1 (the run skipped it; the gradient's forward pass computed it)</source>
            <translation>nicht genommener Zweig: %1 (der Lauf hat ihn übersprungen; der Vorwärtslauf des Gradienten hat ihn berechnet)</translation>
        </message>
        <message>
            <source>not computed: the gradient failed (%1)</source>
            <translation>nicht berechnet: der Gradient ist fehlgeschlagen (%1)</translation>
        </message>
        <message>
            <source>n/a</source>
            <translation>k. A.</translation>
        </message>
    </context>
    <context>
        <name>tc::views::InspectorPanel</name>
        <message>
            <source>exact</source>
            <translation>exakt</translation>
        </message>
        <message>
            <source>relaxed</source>
            <translation>relaxiert</translation>
        </message>
        <message>
            <source>hybrid</source>
            <translation>hybrid</translation>
        </message>
        <message>
            <source>Semantics of the second gradient column, compared with the exact gradient</source>
            <translation>Semantik der zweiten Gradientenspalte, verglichen mit dem exakten Gradienten</translation>
        </message>
        <message>
            <source>Semantics:</source>
            <translation>Semantik:</translation>
        </message>
        <message>
            <source>Temperature:</source>
            <translation>Temperatur:</translation>
        </message>
        <message>
            <source>Gradient of:</source>
            <translation>Gradient von:</translation>
        </message>
        <message>
            <source>&lt;i&gt;Select a node in the graph, the IR text or this table.&lt;/i&gt;</source>
            <translation>&lt;i&gt;Wählen Sie einen Knoten im Graphen, im IR-Text oder in dieser Tabelle.&lt;/i&gt;</translation>
        </message>
        <message>
            <source>not computed</source>
            <translation>nicht berechnet</translation>
        </message>
        <message>
            <source>n/a</source>
            <translation>k. A.</translation>
        </message>
        <message>
            <source>value: &lt;b&gt;%1&lt;/b&gt;</source>
            <translation>Wert: &lt;b&gt;%1&lt;/b&gt;</translation>
        </message>
        <message>
            <source>relaxed value: %1</source>
            <translation>relaxierter Wert: %1</translation>
        </message>
        <message>
            <source>gradients are not available in this build</source>
            <translation>Gradienten sind in diesem Build nicht verfügbar</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>fehlgeschlagen</translation>
        </message>
        <message>
            <source>∂ exact: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; ∂ %2: &lt;b&gt;%3&lt;/b&gt;</source>
            <translation>∂ exakt: &lt;b&gt;%1&lt;/b&gt; &amp;nbsp; ∂ %2: &lt;b&gt;%3&lt;/b&gt;</translation>
        </message>
        <message>
            <source>branch taken: yes (%%1)</source>
            <translation>gewählter Zweig: ja (%%1)</translation>
        </message>
        <message>
            <source>branch taken: no (%%1)</source>
            <translation>gewählter Zweig: nein (%%1)</translation>
        </message>
        <message>
            <source>interval: [%1, %2]</source>
            <translation>Intervall: [%1, %2]</translation>
        </message>
        <message>
            <source>value at step %1: &lt;b&gt;%2&lt;/b&gt;</source>
            <translation>Wert in Schritt %1: &lt;b&gt;%2&lt;/b&gt;</translation>
        </message>
        <message>
            <source>(the state the step saw; it committed &lt;b&gt;%1&lt;/b&gt;)</source>
            <translation>(der Zustand, den der Schritt sah; er schrieb &lt;b&gt;%1&lt;/b&gt;)</translation>
        </message>
        <message>
            <source>loop iteration: %1</source>
            <translation>Schleifendurchlauf: %1</translation>
        </message>
        <message>
            <source>Copy &amp;Row</source>
            <translation>&amp;Zeile kopieren</translation>
        </message>
        <message>
            <source>value: untaken branch: &lt;b&gt;%1&lt;/b&gt; (the run skipped it; the gradient's forward pass computed it)</source>
            <translation>Wert: nicht genommener Zweig: &lt;b&gt;%1&lt;/b&gt; (der Lauf hat ihn übersprungen; der Vorwärtslauf des Gradienten hat ihn berechnet)</translation>
        </message>
        <message>
            <source>∂ exact: &lt;b&gt;%1&lt;/b&gt;</source>
            <translation>∂ exakt: &lt;b&gt;%1&lt;/b&gt;</translation>
        </message>
    </context>
    <context>
        <name>tc::views::IrTextView</name>
        <message>
            <source> (set in the Inspector; the program's default is %1)</source>
            <translation> (im Inspektor gewählt; die Vorgabe des Programms ist %1)</translation>
        </message>
    </context>
    <context>
        <name>tc::views::MainWindow</name>
        <message>
            <source>Circuit</source>
            <translation>Schaltung</translation>
        </message>
        <message>
            <source>Neighbourhood</source>
            <translation>Nachbarschaft</translation>
        </message>
        <message>
            <source>layout %1 ms (Graphviz)</source>
            <translation>Layout %1 ms (Graphviz)</translation>
        </message>
        <message>
            <source>layout %1 ms</source>
            <translation>Layout %1 ms</translation>
        </message>
        <message>
            <source>Save snapshot</source>
            <translation>Snapshot speichern</translation>
        </message>
        <message>
            <source>Snapshots (*.json)</source>
            <translation>Snapshots (*.json)</translation>
        </message>
        <message>
            <source>Restore snapshot</source>
            <translation>Snapshot wiederherstellen</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Quelltext</translation>
        </message>
        <message>
            <source>Inputs</source>
            <translation>Eingaben</translation>
        </message>
        <message>
            <source>Inspector</source>
            <translation>Inspektor</translation>
        </message>
        <message>
            <source>IR text</source>
            <translation>IR-Text</translation>
        </message>
        <message>
            <source>Problems</source>
            <translation>Probleme</translation>
        </message>
        <message>
            <source>Timeline</source>
            <translation>Zeitleiste</translation>
        </message>
        <message>
            <source>Verify</source>
            <translation>Verifizieren</translation>
        </message>
        <message>
            <source>Graph</source>
            <translation>Graph</translation>
        </message>
        <message>
            <source>no node matches '%1'</source>
            <translation>kein Knoten passt zu '%1'</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>&amp;Datei</translation>
        </message>
        <message>
            <source>&amp;New</source>
            <translation>&amp;Neu</translation>
        </message>
        <message>
            <source>&amp;Open…</source>
            <translation>Ö&amp;ffnen…</translation>
        </message>
        <message>
            <source>Open &amp;Recent</source>
            <translation>&amp;Zuletzt geöffnet</translation>
        </message>
        <message>
            <source>&amp;Save</source>
            <translation>&amp;Speichern</translation>
        </message>
        <message>
            <source>Save &amp;As…</source>
            <translation>Speichern &amp;unter…</translation>
        </message>
        <message>
            <source>&amp;Export</source>
            <translation>&amp;Exportieren</translation>
        </message>
        <message>
            <source>Artifact JSON…</source>
            <translation>Artefakt-JSON…</translation>
        </message>
        <message>
            <source>Ctrl+E</source>
            <translation>Ctrl+E</translation>
        </message>
        <message>
            <source>Optimized artifact…</source>
            <translation>Optimiertes Artefakt…</translation>
        </message>
        <message>
            <source>Graphviz .dot…</source>
            <translation>Graphviz-.dot…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Beenden</translation>
        </message>
        <message>
            <source>&amp;Edit</source>
            <translation>&amp;Bearbeiten</translation>
        </message>
        <message>
            <source>&amp;Undo</source>
            <translation>&amp;Rückgängig</translation>
        </message>
        <message>
            <source>&amp;Redo</source>
            <translation>&amp;Wiederholen</translation>
        </message>
        <message>
            <source>Cu&amp;t</source>
            <translation>&amp;Ausschneiden</translation>
        </message>
        <message>
            <source>&amp;Copy</source>
            <translation>&amp;Kopieren</translation>
        </message>
        <message>
            <source>&amp;Paste</source>
            <translation>E&amp;infügen</translation>
        </message>
        <message>
            <source>&amp;Find…</source>
            <translation>&amp;Suchen…</translation>
        </message>
        <message>
            <source>Find &amp;Next</source>
            <translation>&amp;Weitersuchen</translation>
        </message>
        <message>
            <source>Find &amp;Node…</source>
            <translation>&amp;Knoten suchen…</translation>
        </message>
        <message>
            <source>Ctrl+G</source>
            <translation>Ctrl+G</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>&amp;Ansicht</translation>
        </message>
        <message>
            <source>&amp;Fit Circuit</source>
            <translation>Schaltung &amp;einpassen</translation>
        </message>
        <message>
            <source>Ctrl+0</source>
            <translation>Ctrl+0</translation>
        </message>
        <message>
            <source>Zoom &amp;In</source>
            <translation>&amp;Vergrößern</translation>
        </message>
        <message>
            <source>Zoom &amp;Out</source>
            <translation>Ver&amp;kleinern</translation>
        </message>
        <message>
            <source>&amp;Centre on Selection</source>
            <translation>Auswahl &amp;zentrieren</translation>
        </message>
        <message>
            <source>Ctrl+J</source>
            <translation>Ctrl+J</translation>
        </message>
        <message>
            <source>&amp;Overlay</source>
            <translation>&amp;Überlagerung</translation>
        </message>
        <message>
            <source>Op kinds</source>
            <translation>Op-Arten</translation>
        </message>
        <message>
            <source>Intervals and warnings</source>
            <translation>Intervalle und Warnungen</translation>
        </message>
        <message>
            <source>Value heat map</source>
            <translation>Wärmebild der Werte</translation>
        </message>
        <message>
            <source>&amp;Language</source>
            <translation>&amp;Sprache</translation>
        </message>
        <message>
            <source>System default</source>
            <translation>Systemvorgabe</translation>
        </message>
        <message>
            <source>The language changes when the IDE starts next.</source>
            <translation>Die Sprache wechselt beim nächsten Start der IDE.</translation>
        </message>
        <message>
            <source>&amp;Run</source>
            <translation>A&amp;usführen</translation>
        </message>
        <message>
            <source>&amp;Run Case</source>
            <translation>Fall &amp;ausführen</translation>
        </message>
        <message>
            <source>&amp;Compile Now</source>
            <translation>Jetzt &amp;kompilieren</translation>
        </message>
        <message>
            <source>Ctrl+B</source>
            <translation>Ctrl+B</translation>
        </message>
        <message>
            <source>&amp;Verify</source>
            <translation>&amp;Verifizieren</translation>
        </message>
        <message>
            <source>Shift+F6</source>
            <translation>Shift+F6</translation>
        </message>
        <message>
            <source>Open &amp;Event Log…</source>
            <translation>&amp;Ereignisprotokoll öffnen…</translation>
        </message>
        <message>
            <source>Ctrl+Shift+O</source>
            <translation>Ctrl+Shift+O</translation>
        </message>
        <message>
            <source>Step &amp;Forward</source>
            <translation>Schritt &amp;vor</translation>
        </message>
        <message>
            <source>Step &amp;Back</source>
            <translation>Schritt &amp;zurück</translation>
        </message>
        <message>
            <source>Shift+F10</source>
            <translation>Shift+F10</translation>
        </message>
        <message>
            <source>Jump to Next &amp;Change</source>
            <translation>Zur nächsten Ä&amp;nderung</translation>
        </message>
        <message>
            <source>Ctrl+F10</source>
            <translation>Ctrl+F10</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>&amp;Hilfe</translation>
        </message>
        <message>
            <source>&amp;About tensorcode</source>
            <translation>&amp;Über tensorcode</translation>
        </message>
        <message>
            <source>About tensorcode</source>
            <translation>Über tensorcode</translation>
        </message>
        <message>
            <source>&lt;b&gt;tensorcode&lt;/b&gt; %1&lt;br&gt;A compiler, checked evaluator and visual debugger for small numerical programs.</source>
            <translation>&lt;b&gt;tensorcode&lt;/b&gt; %1&lt;br&gt;Ein Compiler, geprüfter Auswerter und visueller Debugger für kleine numerische Programme.</translation>
        </message>
        <message>
            <source>untitled.py</source>
            <translation>unbenannt.py</translation>
        </message>
        <message>
            <source> (read-only artifact)</source>
            <translation> (schreibgeschütztes Artefakt)</translation>
        </message>
        <message>
            <source>artifact</source>
            <translation>Artefakt</translation>
        </message>
        <message>
            <source>compile %1 ms</source>
            <translation>Kompilieren %1 ms</translation>
        </message>
        <message numerus="yes">
            <source>%n node(s)</source>
            <translation>
                <numerusform>%n Knoten</numerusform>
                <numerusform>%n Knoten</numerusform>
            </translation>
        </message>
        <message>
            <source>no program</source>
            <translation>kein Programm</translation>
        </message>
        <message>
            <source>run failed</source>
            <translation>Ausführung fehlgeschlagen</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>saved %1</source>
            <translation>%1 gespeichert</translation>
        </message>
        <message>
            <source>Save source</source>
            <translation>Quelltext speichern</translation>
        </message>
        <message>
            <source>Python (*.py)</source>
            <translation>Python (*.py)</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>Ungespeicherte Änderungen</translation>
        </message>
        <message>
            <source>Save the changes to %1?</source>
            <translation>Änderungen an %1 speichern?</translation>
        </message>
        <message>
            <source>Open program</source>
            <translation>Programm öffnen</translation>
        </message>
        <message>
            <source>Programs (*.py *.json);;Python (*.py);;Artifacts (*.json)</source>
            <translation>Programme (*.py *.json);;Python (*.py);;Artefakte (*.json)</translation>
        </message>
        <message>
            <source>no program to export</source>
            <translation>kein Programm zum Exportieren</translation>
        </message>
        <message>
            <source>Artifacts (*.json)</source>
            <translation>Artefakte (*.json)</translation>
        </message>
        <message>
            <source>Graphviz (*.dot)</source>
            <translation>Graphviz (*.dot)</translation>
        </message>
        <message>
            <source>WGSL (*.wgsl)</source>
            <translation>WGSL (*.wgsl)</translation>
        </message>
        <message>
            <source>SPIR-V (*.spv *.spvasm)</source>
            <translation>SPIR-V (*.spv *.spvasm)</translation>
        </message>
        <message>
            <source>WebAssembly (*.wasm *.wat)</source>
            <translation>WebAssembly (*.wasm *.wat)</translation>
        </message>
        <message>
            <source>Export</source>
            <translation>Exportieren</translation>
        </message>
        <message>
            <source>exported %1</source>
            <translation>%1 exportiert</translation>
        </message>
        <message>
            <source>Open event log</source>
            <translation>Ereignisprotokoll öffnen</translation>
        </message>
        <message>
            <source>Event logs (*.jsonl *.json)</source>
            <translation>Ereignisprotokolle (*.jsonl *.json)</translation>
        </message>
        <message>
            <source>'%1' not found</source>
            <translation>'%1' nicht gefunden</translation>
        </message>
        <message>
            <source>Find in source (Ctrl+F, F3 next, Shift+F3 previous)</source>
            <translation>Im Quelltext suchen (Strg+F, F3 weiter, Umschalt+F3 zurück)</translation>
        </message>
        <message>
            <source>WGSL…</source>
            <translation>WGSL…</translation>
        </message>
        <message>
            <source>SPIR-V…</source>
            <translation>SPIR-V…</translation>
        </message>
        <message>
            <source>WebAssembly…</source>
            <translation>WebAssembly…</translation>
        </message>
        <message>
            <source>Find &amp;Previous</source>
            <translation>&amp;Vorheriges suchen</translation>
        </message>
        <message>
            <source>&amp;Replace…</source>
            <translation>&amp;Ersetzen…</translation>
        </message>
        <message>
            <source>Ctrl+H</source>
            <translation>Ctrl+H</translation>
        </message>
        <message>
            <source>&amp;Go to Line…</source>
            <translation>&amp;Gehe zu Zeile…</translation>
        </message>
        <message>
            <source>Ctrl+L</source>
            <translation>Ctrl+L</translation>
        </message>
        <message>
            <source>Number &amp;Precision</source>
            <translation>Zahlen&amp;genauigkeit</translation>
        </message>
        <message>
            <source>4 significant digits</source>
            <translation>4 signifikante Stellen</translation>
        </message>
        <message>
            <source>6 significant digits</source>
            <translation>6 signifikante Stellen</translation>
        </message>
        <message>
            <source>10 significant digits</source>
            <translation>10 signifikante Stellen</translation>
        </message>
        <message>
            <source>Full (shortest round trip)</source>
            <translation>Voll (kürzeste exakte Darstellung)</translation>
        </message>
        <message>
            <source>step %1: %2</source>
            <translation>Schritt %1: %2</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>not exported: %1</source>
            <translation>nicht exportiert: %1</translation>
        </message>
        <message>
            <source>The program computes in float64; %1 computes in float32, so results can differ in the last digits or overflow earlier.</source>
            <translation>Das Programm rechnet in float64; %1 rechnet in float32, Ergebnisse können sich daher in den letzten Stellen unterscheiden oder früher überlaufen.</translation>
        </message>
        <message>
            <source>Export (float32)</source>
            <translation>Exportieren (float32)</translation>
        </message>
        <message>
            <source>exported %1 (float32)</source>
            <translation>%1 exportiert (float32)</translation>
        </message>
        <message>
            <source>no event log: open one with Run &gt; Open Event Log (Ctrl+Shift+O) to step through it</source>
            <translation>kein Ereignisprotokoll: Öffnen Sie eines mit Ausführen &gt; Ereignisprotokoll öffnen (Strg+Umschalt+O), um es schrittweise zu durchlaufen</translation>
        </message>
        <message>
            <source>Go to Line</source>
            <translation>Gehe zu Zeile</translation>
        </message>
        <message>
            <source>Line (1 to %1):</source>
            <translation>Zeile (1 bis %1):</translation>
        </message>
        <message>
            <source>Replace with (Ctrl+H; Enter replaces and finds the next, Ctrl+Shift+H replaces all)</source>
            <translation>Ersetzen durch (Strg+H; Eingabe ersetzt und sucht weiter, Strg+Umschalt+H ersetzt alle)</translation>
        </message>
        <message>
            <source>Find node: id, name, op or line N (Ctrl+G)</source>
            <translation>Knoten suchen: ID, Name, Op oder Zeile N (Strg+G)</translation>
        </message>
        <message>
            <source>Return shows the next match</source>
            <translation>Eingabe zeigt den nächsten Treffer</translation>
        </message>
        <message>
            <source>%1 of %2</source>
            <translation>%1 von %2</translation>
        </message>
        <message>
            <source>no match</source>
            <translation>kein Treffer</translation>
        </message>
        <message>
            <source>out of date: %1</source>
            <translation>veraltet: %1</translation>
        </message>
        <message>
            <source>the source was saved, the named cases were not: %1</source>
            <translation>der Quelltext wurde gespeichert, die benannten Fälle nicht: %1</translation>
        </message>
        <message>
            <source>ONNX models (*.onnx)</source>
            <translation>ONNX-Modelle (*.onnx)</translation>
        </message>
        <message>
            <source>C sources (*.c)</source>
            <translation>C-Quelltexte (*.c)</translation>
        </message>
        <message>
            <source>%1 already exists beside %2. Replace it with the exported header?</source>
            <translation>%1 existiert bereits neben %2. Durch den exportierten Header ersetzen?</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Vergleich</translation>
        </message>
        <message>
            <source>Compare with &amp;Artifact…</source>
            <translation>Mit &amp;Artefakt vergleichen…</translation>
        </message>
        <message>
            <source>Compare with &amp;Saved Version</source>
            <translation>Mit &amp;gespeicherter Version vergleichen</translation>
        </message>
        <message>
            <source>Stop Comparing</source>
            <translation>Vergleich beenden</translation>
        </message>
        <message>
            <source>&amp;Pin This Run for Comparison</source>
            <translation>Diesen Lauf für den Vergleich &amp;festhalten</translation>
        </message>
        <message>
            <source>Ctrl+Shift+P</source>
            <translation>Ctrl+Shift+P</translation>
        </message>
        <message>
            <source>Pin run</source>
            <translation>Lauf festhalten</translation>
        </message>
        <message>
            <source>%1: change the case or the step to see what differs</source>
            <translation>%1: ändern Sie den Fall oder den Schritt, um die Unterschiede zu sehen</translation>
        </message>
        <message>
            <source>Next &amp;Difference</source>
            <translation>Nächster &amp;Unterschied</translation>
        </message>
        <message>
            <source>no difference to go to</source>
            <translation>kein Unterschied, zu dem gesprungen werden kann</translation>
        </message>
        <message>
            <source>Previous Difference</source>
            <translation>Vorheriger Unterschied</translation>
        </message>
        <message>
            <source>Shift+F8</source>
            <translation>Shift+F8</translation>
        </message>
        <message>
            <source>Compare with</source>
            <translation>Vergleichen mit</translation>
        </message>
        <message>
            <source>Programs (*.json *.py);;Artifacts (*.json);;Python (*.py)</source>
            <translation>Programme (*.json *.py);;Artefakte (*.json);;Python (*.py)</translation>
        </message>
        <message>
            <source>Ctrl+Shift+S</source>
            <translation>Ctrl+Shift+S</translation>
        </message>
        <message>
            <source>C source and header…</source>
            <translation>C-Quelltext und Header…</translation>
        </message>
        <message>
            <source>ONNX model…</source>
            <translation>ONNX-Modell…</translation>
        </message>
        <message>
            <source>Ctrl+Q</source>
            <translation>Ctrl+Q</translation>
        </message>
        <message>
            <source>Replace &amp;All</source>
            <translation>&amp;Alle ersetzen</translation>
        </message>
        <message>
            <source>Ctrl+Shift+H</source>
            <translation>Ctrl+Shift+H</translation>
        </message>
        <message numerus="yes">
            <source>replaced %n occurrence(s) of '%1'</source>
            <translation>
                <numerusform>%n Vorkommen von '%1' ersetzt</numerusform>
                <numerusform>%n Vorkommen von '%1' ersetzt</numerusform>
            </translation>
        </message>
        <message>
            <source>#%1 does not change after this step</source>
            <translation>#%1 ändert sich nach diesem Schritt nicht</translation>
        </message>
        <message>
            <source>Jump to &amp;Previous Change</source>
            <translation>Zur &amp;vorherigen Änderung springen</translation>
        </message>
        <message>
            <source>Ctrl+Shift+F10</source>
            <translation>Ctrl+Shift+F10</translation>
        </message>
        <message>
            <source>#%1 does not change before this step</source>
            <translation>#%1 ändert sich vor diesem Schritt nicht</translation>
        </message>
        <message>
            <source>&amp;Program</source>
            <translation>&amp;Programm</translation>
        </message>
        <message>
            <source>Compile &amp;Options…</source>
            <translation>Kompilier&amp;optionen…</translation>
        </message>
        <message>
            <source>Ctrl+Shift+B</source>
            <translation>Ctrl+Shift+B</translation>
        </message>
        <message>
            <source>an artifact is already compiled: its options cannot change</source>
            <translation>ein Artefakt ist bereits kompiliert: seine Optionen können sich nicht ändern</translation>
        </message>
        <message>
            <source>&amp;Keyboard Shortcuts</source>
            <translation>&amp;Tastenkürzel</translation>
        </message>
        <message>
            <source>IDE &amp;Documentation</source>
            <translation>IDE-&amp;Dokumentation</translation>
        </message>
        <message>
            <source>the IDE guide is docs/ide.md in the tensorcode sources</source>
            <translation>die IDE-Anleitung ist docs/ide.md in den tensorcode-Quellen</translation>
        </message>
        <message>
            <source>Keyboard Shortcuts</source>
            <translation>Tastenkürzel</translation>
        </message>
        <message>
            <source>Menu</source>
            <translation>Menü</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>Aktion</translation>
        </message>
        <message>
            <source>Shortcut</source>
            <translation>Tastenkürzel</translation>
        </message>
        <message>
            <source>&amp;Prove</source>
            <translation>&amp;Beweisen</translation>
        </message>
        <message>
            <source>Ctrl+F6</source>
            <translation>Ctrl+F6</translation>
        </message>
        <message>
            <source>Cancel Verify or Prove</source>
            <translation>Verifikation oder Beweis abbrechen</translation>
        </message>
    </context>
    <context>
        <name>tc::views::ProblemsView</name>
        <message>
            <source>Severity</source>
            <translation>Schwere</translation>
        </message>
        <message>
            <source>Location</source>
            <translation>Ort</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Meldung</translation>
        </message>
        <message>
            <source>error</source>
            <translation>Fehler</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>Warnung</translation>
        </message>
        <message>
            <source>note</source>
            <translation>Hinweis</translation>
        </message>
    </context>
    <context>
        <name>tc::views::Session</name>
        <message>
            <source>cannot open %1: %2</source>
            <translation>%1 kann nicht geöffnet werden: %2</translation>
        </message>
        <message numerus="yes">
            <source>compile failed: %n problem(s)</source>
            <translation>
                <numerusform>Kompilieren fehlgeschlagen: %n Problem</numerusform>
                <numerusform>Kompilieren fehlgeschlagen: %n Probleme</numerusform>
            </translation>
        </message>
        <message>
            <source>compile or open a program first</source>
            <translation>kompilieren oder öffnen Sie zuerst ein Programm</translation>
        </message>
        <message>
            <source>no program to snapshot</source>
            <translation>kein Programm für einen Snapshot</translation>
        </message>
        <message>
            <source>loaded in %1 ms, %2 nodes</source>
            <translation>in %1 ms geladen, %2 Knoten</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>cannot load %1: %2</source>
            <translation>%1 kann nicht geladen werden: %2</translation>
        </message>
        <message>
            <source>nothing is compiled yet</source>
            <translation>noch nichts kompiliert</translation>
        </message>
        <message>
            <source>the source does not compile (%1); the circuit shown is the last one that compiled</source>
            <translation>der Quelltext lässt sich nicht kompilieren (%1); die gezeigte Schaltung ist die zuletzt kompilierte</translation>
        </message>
        <message>
            <source>the source does not compile; the circuit shown is the last one that compiled</source>
            <translation>der Quelltext lässt sich nicht kompilieren; die gezeigte Schaltung ist die zuletzt kompilierte</translation>
        </message>
        <message>
            <source>the source changed since the last compile; compile it first (Ctrl+B)</source>
            <translation>der Quelltext hat sich seit dem letzten Kompilieren geändert; zuerst kompilieren (Strg+B)</translation>
        </message>
        <message>
            <source>ignored %1: %2</source>
            <translation>%1 ignoriert: %2</translation>
        </message>
        <message>
            <source>undefined</source>
            <translation>undefiniert</translation>
        </message>
        <message>
            <source>not computed</source>
            <translation>nicht berechnet</translation>
        </message>
        <message>
            <source>%%1 = %2%3</source>
            <translation>%%1 = %2%3</translation>
        </message>
        <message>
            <source> (taken)</source>
            <translation> (genommen)</translation>
        </message>
        <message>
            <source> (not taken)</source>
            <translation> (nicht genommen)</translation>
        </message>
        <message>
            <source>(yes - no) * surrogate'(%%1): yes %2, no %3</source>
            <translation>(ja - nein) * Surrogat'(%%1): ja %2, nein %3</translation>
        </message>
        <message>
            <source>Restore snapshot</source>
            <translation>Snapshot wiederherstellen</translation>
        </message>
        <message>
            <source>snapshot %1 restored at step %2 of the event log; the steps after it replay from its state</source>
            <translation>Snapshot %1 in Schritt %2 des Ereignisprotokolls wiederhergestellt; die Schritte danach laufen ab seinem Zustand neu</translation>
        </message>
        <message>
            <source>snapshot %1 (step %2) is not on the open event log (steps %3 to %4): the log was closed</source>
            <translation>Snapshot %1 (Schritt %2) liegt nicht im geöffneten Ereignisprotokoll (Schritte %3 bis %4): das Protokoll wurde geschlossen</translation>
        </message>
        <message>
            <source>snapshot %1 restored at step %2</source>
            <translation>Snapshot %1 in Schritt %2 wiederhergestellt</translation>
        </message>
        <message>
            <source>snapshot saved: %1</source>
            <translation>Snapshot gespeichert: %1</translation>
        </message>
        <message>
            <source>Save snapshot</source>
            <translation>Snapshot speichern</translation>
        </message>
        <message numerus="yes">
            <source>event log loaded: %n step(s), paused at step %1</source>
            <translation>
                <numerusform>Ereignisprotokoll geladen: %n Schritt, angehalten bei Schritt %1</numerusform>
                <numerusform>Ereignisprotokoll geladen: %n Schritte, angehalten bei Schritt %1</numerusform>
            </translation>
        </message>
        <message>
            <source>loading %1…</source>
            <translation>%1 wird geladen…</translation>
        </message>
        <message>
            <source>cannot load %1: %2
The open document is unchanged.</source>
            <translation>%1 kann nicht geladen werden: %2
Das offene Dokument bleibt unverändert.</translation>
        </message>
        <message>
            <source>cannot open %1: it is not a text file (a NUL byte at offset %2)</source>
            <translation>%1 kann nicht geöffnet werden: keine Textdatei (ein NUL-Byte an Position %2)</translation>
        </message>
    </context>
    <context>
        <name>tc::views::SourceEditor</name>
        <message>
            <source># %1 is an artifact: it carries no source, so this view is read-only.
# The IR text view lists its nodes; the graph shows the circuit.
</source>
            <translation># %1 ist ein Artefakt: Es enthält keinen Quelltext, daher ist diese Ansicht schreibgeschützt.
# Der IR-Text listet seine Knoten; der Graph zeigt die Schaltung.
</translation>
        </message>
        <message>
            <source>error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>warning: %1</source>
            <translation>Warnung: %1</translation>
        </message>
    </context>
    <context>
        <name>tc::views::TimelinePanel</name>
        <message>
            <source>Open an event log (JSON Lines)</source>
            <translation>Ein Ereignisprotokoll öffnen (JSON Lines)</translation>
        </message>
        <message>
            <source>Step 0</source>
            <translation>Schritt 0</translation>
        </message>
        <message>
            <source>Step back (Shift+F10)</source>
            <translation>Schritt zurück (Umschalt+F10)</translation>
        </message>
        <message>
            <source>Step forward (F10)</source>
            <translation>Schritt vor (F10)</translation>
        </message>
        <message>
            <source>Last step</source>
            <translation>Letzter Schritt</translation>
        </message>
        <message>
            <source>no event log</source>
            <translation>kein Ereignisprotokoll</translation>
        </message>
        <message>
            <source>Save snapshot…</source>
            <translation>Snapshot speichern…</translation>
        </message>
        <message>
            <source>Save the state at this step as a snapshot</source>
            <translation>Den Zustand bei diesem Schritt als Snapshot speichern</translation>
        </message>
        <message>
            <source>Restore snapshot…</source>
            <translation>Snapshot wiederherstellen…</translation>
        </message>
        <message>
            <source>Restore a snapshot and replay from it</source>
            <translation>Einen Snapshot wiederherstellen und von dort abspielen</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Name</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>Wert</translation>
        </message>
        <message>
            <source>step %1 of %2</source>
            <translation>Schritt %1 von %2</translation>
        </message>
        <message>
            <source>state %1</source>
            <translation>Zustand %1</translation>
        </message>
        <message>
            <source>output %1</source>
            <translation>Ausgabe %1</translation>
        </message>
        <message>
            <source>event %1</source>
            <translation>Ereignis %1</translation>
        </message>
        <message>
            <source>event line</source>
            <translation>Ereigniszeile</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>angehalten</translation>
        </message>
        <message>
            <source>step</source>
            <translation>Schritt</translation>
        </message>
        <message>
            <source>Open…</source>
            <translation>Öffnen…</translation>
        </message>
        <message>
            <source>Snapshot</source>
            <translation>Snapshot</translation>
        </message>
        <message>
            <source>Save or restore the state as a snapshot</source>
            <translation>Den Zustand als Snapshot speichern oder wiederherstellen</translation>
        </message>
        <message>
            <source>state %1 (before)</source>
            <translation>Zustand %1 (vorher)</translation>
        </message>
        <message>
            <source>the state this step's event saw; its outputs and node values are computed from it</source>
            <translation>der Zustand, den das Ereignis dieses Schritts sah; seine Ausgaben und Knotenwerte sind daraus berechnet</translation>
        </message>
        <message>
            <source>state %1 (after)</source>
            <translation>Zustand %1 (nachher)</translation>
        </message>
        <message>
            <source>the state this step committed</source>
            <translation>der Zustand, den dieser Schritt schrieb</translation>
        </message>
        <message>
            <source>after (step 0)</source>
            <translation>nachher (Schritt 0)</translation>
        </message>
        <message>
            <source>before (step 0)</source>
            <translation>vorher (Schritt 0)</translation>
        </message>
        <message>
            <source>after (step %1)</source>
            <translation>nachher (Schritt %1)</translation>
        </message>
        <message>
            <source>before (step %1)</source>
            <translation>vorher (Schritt %1)</translation>
        </message>
        <message>
            <source>◀ Change</source>
            <translation>◀ Änderung</translation>
        </message>
        <message>
            <source>Jump back to the last step where the selected node's value changed (Ctrl+Shift+F10)</source>
            <translation>Zurück zum letzten Schritt, in dem sich der Wert des gewählten Knotens geändert hat (Strg+Umschalt+F10)</translation>
        </message>
        <message>
            <source>Change ▶</source>
            <translation>Änderung ▶</translation>
        </message>
        <message>
            <source>Jump to the next step where the selected node's value changed (Ctrl+F10)</source>
            <translation>Zum nächsten Schritt, in dem sich der Wert des gewählten Knotens ändert (Strg+F10)</translation>
        </message>
        <message>
            <source>%1 (after each step)</source>
            <translation>%1 (nach jedem Schritt)</translation>
        </message>
    </context>
    <context>
        <name>tc::views::VerifyPanel</name>
        <message>
            <source>Verify</source>
            <translation>Verifizieren</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>not run yet</source>
            <translation>noch nicht ausgeführt</translation>
        </message>
        <message>
            <source>Inputs</source>
            <translation>Eingaben</translation>
        </message>
        <message>
            <source>Circuit</source>
            <translation>Schaltung</translation>
        </message>
        <message>
            <source>Reference</source>
            <translation>Referenz</translation>
        </message>
        <message>
            <source>verifying…</source>
            <translation>wird verifiziert…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>fehlgeschlagen</translation>
        </message>
        <message>
            <source> (exhaustive)</source>
            <translation> (vollständig)</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>abgebrochen</translation>
        </message>
        <message>
            <source>…</source>
            <translation>…</translation>
        </message>
        <message>
            <source>the source itself, run by CPython</source>
            <translation>der Quelltext selbst, von CPython ausgeführt</translation>
        </message>
        <message>
            <source>A Python file whose function is the reference (empty: the program's own source)</source>
            <translation>Eine Python-Datei, deren Funktion die Referenz ist (leer: der eigene Quelltext des Programms)</translation>
        </message>
        <message>
            <source>its only function</source>
            <translation>ihre einzige Funktion</translation>
        </message>
        <message>
            <source>The reference file's function (empty: its only one, or the one named like the program's)</source>
            <translation>Die Funktion der Referenzdatei (leer: ihre einzige oder die gleichnamige)</translation>
        </message>
        <message>
            <source>Absolute tolerance (0 and 0: values must be equal)</source>
            <translation>Absolute Toleranz (0 und 0: Werte müssen gleich sein)</translation>
        </message>
        <message>
            <source>Relative tolerance</source>
            <translation>Relative Toleranz</translation>
        </message>
        <message>
            <source>The circuit's arithmetic for the check</source>
            <translation>Die Arithmetik der Schaltung für die Prüfung</translation>
        </message>
        <message>
            <source>enumerate or sample the inputs' domains</source>
            <translation>Wertebereiche der Eingaben aufzählen oder stichprobenartig prüfen</translation>
        </message>
        <message>
            <source>A JSON Lines file of cases ({"a": 5} per line)</source>
            <translation>Eine JSON-Lines-Datei mit Fällen ({"a": 5} pro Zeile)</translation>
        </message>
        <message>
            <source>Reference:</source>
            <translation>Referenz:</translation>
        </message>
        <message>
            <source>Reference Python file</source>
            <translation>Python-Referenzdatei</translation>
        </message>
        <message>
            <source>Python (*.py)</source>
            <translation>Python (*.py)</translation>
        </message>
        <message>
            <source>Function:</source>
            <translation>Funktion:</translation>
        </message>
        <message>
            <source>Cases:</source>
            <translation>Fälle:</translation>
        </message>
        <message>
            <source>Case file</source>
            <translation>Falldatei</translation>
        </message>
        <message>
            <source>JSON Lines (*.jsonl *.json)</source>
            <translation>JSON Lines (*.jsonl *.json)</translation>
        </message>
        <message>
            <source>atol</source>
            <translation>atol</translation>
        </message>
        <message>
            <source>rtol</source>
            <translation>rtol</translation>
        </message>
        <message>
            <source>dtype</source>
            <translation>dtype</translation>
        </message>
        <message>
            <source>Check the circuit against the reference over the inputs' domains (F6)</source>
            <translation>Die Schaltung über die Wertebereiche der Eingaben gegen die Referenz prüfen (F6)</translation>
        </message>
        <message>
            <source>Difference</source>
            <translation>Differenz</translation>
        </message>
        <message>
            <source>Click a mismatch to load its inputs as the current case</source>
            <translation>Eine Abweichung anklicken, um ihre Eingaben als aktuellen Fall zu laden</translation>
        </message>
        <message>
            <source>&lt;b style='color:#8a5a00'&gt;stale&lt;/b&gt; (the code or the settings changed since; F6 runs it again): %1</source>
            <translation>&lt;b style='color:#8a5a00'&gt;veraltet&lt;/b&gt; (Code oder Einstellungen haben sich seitdem geändert; F6 prüft erneut): %1</translation>
        </message>
        <message>
            <source>an artifact has no source to verify against: choose a reference file</source>
            <translation>ein Artefakt hat keinen Quelltext zum Verifizieren: wählen Sie eine Referenzdatei</translation>
        </message>
        <message>
            <source>verifying an artifact against a reference file is available on the command line (tensorcode verify --reference)</source>
            <translation>ein Artefakt gegen eine Referenzdatei zu verifizieren geht auf der Kommandozeile (tensorcode verify --reference)</translation>
        </message>
        <message>
            <source>there is no source to verify</source>
            <translation>es gibt keinen Quelltext zu verifizieren</translation>
        </message>
        <message>
            <source>cannot verify: %1</source>
            <translation>Verifizieren nicht möglich: %1</translation>
        </message>
        <message>
            <source>atol and rtol must be numbers</source>
            <translation>atol und rtol müssen Zahlen sein</translation>
        </message>
        <message>
            <source>&lt;b style='color:#1a7f37'&gt;passed&lt;/b&gt;: %1 cases%2 against %3</source>
            <translation>&lt;b style='color:#1a7f37'&gt;bestanden&lt;/b&gt;: %1 Fälle%2 gegen %3</translation>
        </message>
        <message>
            <source>&lt;b style='color:#c02020'&gt;%1 mismatch(es)&lt;/b&gt; in %2 cases against %3</source>
            <translation>&lt;b style='color:#c02020'&gt;%1 Abweichung(en)&lt;/b&gt; in %2 Fällen gegen %3</translation>
        </message>
        <message>
            <source>Prove</source>
            <translation>Beweisen</translation>
        </message>
        <message>
            <source>Prove over the whole input domain with Z3 and cvc5: with a reference file, that the circuit agrees with its function; without one, that the circuit cannot fail (Ctrl+F6)</source>
            <translation>Über den ganzen Eingabebereich mit Z3 und cvc5 beweisen: mit einer Referenzdatei, dass die Schaltung mit ihrer Funktion übereinstimmt; ohne, dass die Schaltung nicht fehlschlagen kann (Ctrl+F6)</translation>
        </message>
        <message>
            <source>proving… (%1)</source>
            <translation>Beweis läuft… (%1)</translation>
        </message>
        <message>
            <source>proving an artifact is available on the command line (tensorcode prove)</source>
            <translation>ein Artefakt lässt sich auf der Kommandozeile beweisen (tensorcode prove)</translation>
        </message>
        <message>
            <source>there is no source to prove</source>
            <translation>es gibt keinen Quelltext zum Beweisen</translation>
        </message>
        <message>
            <source>cannot prove: %1</source>
            <translation>Beweis nicht möglich: %1</translation>
        </message>
        <message>
            <source>a proof covers the whole input domain: clear the cases file to prove</source>
            <translation>ein Beweis umfasst den ganzen Eingabebereich: leeren Sie die Falldatei, um zu beweisen</translation>
        </message>
        <message>
            <source>proving…</source>
            <translation>Beweis läuft…</translation>
        </message>
        <message>
            <source>%1; %2 s</source>
            <translation>%1; %2 s</translation>
        </message>
        <message>
            <source>&lt;b style='color:#1a7f37'&gt;proved equivalent&lt;/b&gt; to %1 over the whole input domain (%2)</source>
            <translation>&lt;b style='color:#1a7f37'&gt;als äquivalent bewiesen&lt;/b&gt; zu %1 über den ganzen Eingabebereich (%2)</translation>
        </message>
        <message>
            <source>&lt;b style='color:#1a7f37'&gt;proved: cannot fail&lt;/b&gt; over the whole input domain (%1)</source>
            <translation>&lt;b style='color:#1a7f37'&gt;bewiesen: kann nicht fehlschlagen&lt;/b&gt; über den ganzen Eingabebereich (%1)</translation>
        </message>
        <message>
            <source>&lt;b style='color:#c02020'&gt;different&lt;/b&gt; from %1: the counterexample below, reproduced by the evaluator (%2)</source>
            <translation>&lt;b style='color:#c02020'&gt;verschieden&lt;/b&gt; von %1: das Gegenbeispiel unten, vom Evaluator nachvollzogen (%2)</translation>
        </message>
        <message>
            <source>&lt;b style='color:#c02020'&gt;can fail&lt;/b&gt;: the counterexample below, reproduced by the evaluator (%1)</source>
            <translation>&lt;b style='color:#c02020'&gt;kann fehlschlagen&lt;/b&gt;: das Gegenbeispiel unten, vom Evaluator nachvollzogen (%1)</translation>
        </message>
        <message>
            <source>&lt;b style='color:#8a5a00'&gt;unknown&lt;/b&gt;: %1 (%2)</source>
            <translation>&lt;b style='color:#8a5a00'&gt;unbekannt&lt;/b&gt;: %1 (%2)</translation>
        </message>
        <message>
            <source>Click to load this counterexample as the current case</source>
            <translation>Klicken, um dieses Gegenbeispiel als aktuellen Fall zu laden</translation>
        </message>
    </context>
</TS>
