#!/usr/bin/env python3
"""Fills translations/tensorcode_de.ts from the table below and fails when a
source string has no German text. Run after `lupdate` (see docs/ide.md):

  lupdate -I . -I core views/*.h views/*.cpp -ts translations/tensorcode_de.ts -no-obsolete -locations none
  python3 translations/fill_de.py
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

DE = {
    'not computed': 'nicht berechnet',
    '  (yes)': '  (ja)',
    '  (no)': '  (nein)',
    'Select a node to see its neighbourhood.': 'Wählen Sie einen Knoten, um seine Nachbarschaft zu sehen.',
    'No program: open a .py file or an artifact.': 'Kein Programm: Öffnen Sie eine .py-Datei oder ein Artefakt.',
    'Laying out…': 'Layout wird berechnet…',
    'neighbourhood of #%1: %2 nodes (Graphviz)': 'Nachbarschaft von #%1: %2 Knoten (Graphviz)',
    '%1 nodes, Graphviz dot by schedule layer': '%1 Knoten, Graphviz dot nach Schedule-Ebene',
    '%1 nodes, layered layout by schedule layer': '%1 Knoten, Ebenen-Layout nach Schedule-Ebene',
    '   zoom %1%': '   Zoom %1 %',
    'Function:': 'Funktion:',
    'Parameter': 'Parameter',
    'Type': 'Typ',
    'Min': 'Min',
    'Max': 'Max',
    'Value': 'Wert',
    'no domain saved for this parameter: float64 over its full range':
        'für diesen Parameter ist kein Wertebereich gespeichert: float64 über den ganzen Bereich',
    "empty: the type's full range": 'leer: der ganze Bereich des Typs',
    '%1: not a number': '%1: keine Zahl',
    'Outputs: %1': 'Ausgaben: %1',
    'Node': 'Knoten',
    'Op': 'Op',
    'Value (%1)': 'Wert (%1)',
    '∂ exact': '∂ exakt',
    '∂ %1': '∂ %1',
    'Branch': 'Zweig',
    'Interval': 'Intervall',
    'yes': 'ja',
    'no': 'nein',
    'exact': 'exakt',
    'relaxed': 'relaxiert',
    'hybrid': 'hybrid',
    'Semantics of the second gradient column, compared with the exact gradient':
        'Semantik der zweiten Gradientenspalte, verglichen mit dem exakten Gradienten',
    'Semantics:': 'Semantik:',
    'Temperature:': 'Temperatur:',
    'Gradient of:': 'Gradient von:',
    '<i>Select a node in the graph, the IR text or this table.</i>':
        '<i>Wählen Sie einen Knoten im Graphen, im IR-Text oder in dieser Tabelle.</i>',
    'n/a': 'k. A.',
    'value: <b>%1</b>': 'Wert: <b>%1</b>',
    'relaxed value: %1': 'relaxierter Wert: %1',
    'gradients are not available in this build': 'Gradienten sind in diesem Build nicht verfügbar',
    'failed': 'fehlgeschlagen',
    '∂ exact: <b>%1</b> &nbsp; ∂ %2: <b>%3</b>': '∂ exakt: <b>%1</b> &nbsp; ∂ %2: <b>%3</b>',
    'branch taken: yes (%%1)': 'gewählter Zweig: ja (%%1)',
    'branch taken: no (%%1)': 'gewählter Zweig: nein (%%1)',
    'interval: [%1, %2]': 'Intervall: [%1, %2]',
    'Circuit': 'Schaltung',
    'Neighbourhood': 'Nachbarschaft',
    'layout %1 ms (Graphviz)': 'Layout %1 ms (Graphviz)',
    'layout %1 ms': 'Layout %1 ms',
    'Save snapshot': 'Snapshot speichern',
    'Snapshots (*.json)': 'Snapshots (*.json)',
    'Restore snapshot': 'Snapshot wiederherstellen',
    'Find in source (Ctrl+F, F3 next)': 'Im Quelltext suchen (Strg+F, F3 weiter)',
    'Source': 'Quelltext',
    'Inputs': 'Eingaben',
    'Inspector': 'Inspektor',
    'IR text': 'IR-Text',
    'Problems': 'Probleme',
    'Timeline': 'Zeitleiste',
    'Verify': 'Verifizieren',
    'Graph': 'Graph',
    'Find node: id or name (Ctrl+G)': 'Knoten suchen: ID oder Name (Strg+G)',
    "no node matches '%1'": "kein Knoten passt zu '%1'",
    '&File': '&Datei',
    '&New': '&Neu',
    '&Open…': 'Ö&ffnen…',
    'Open &Recent': '&Zuletzt geöffnet',
    '&Save': '&Speichern',
    'Save &As…': 'Speichern &unter…',
    '&Export': '&Exportieren',
    'Artifact JSON…': 'Artefakt-JSON…',
    'Ctrl+E': 'Ctrl+E',
    'Optimized artifact…': 'Optimiertes Artefakt…',
    'Graphviz .dot…': 'Graphviz-.dot…',
    '&Quit': '&Beenden',
    '&Edit': '&Bearbeiten',
    '&Undo': '&Rückgängig',
    '&Redo': '&Wiederholen',
    'Cu&t': '&Ausschneiden',
    '&Copy': '&Kopieren',
    '&Paste': 'E&infügen',
    '&Find…': '&Suchen…',
    'Find &Next': '&Weitersuchen',
    'Find &Node…': '&Knoten suchen…',
    'Ctrl+G': 'Ctrl+G',
    '&View': '&Ansicht',
    '&Fit Circuit': 'Schaltung &einpassen',
    'Ctrl+0': 'Ctrl+0',
    'Zoom &In': '&Vergrößern',
    'Zoom &Out': 'Ver&kleinern',
    '&Centre on Selection': 'Auswahl &zentrieren',
    'Ctrl+J': 'Ctrl+J',
    '&Overlay': '&Überlagerung',
    'Op kinds': 'Op-Arten',
    'Intervals and warnings': 'Intervalle und Warnungen',
    'Value heat map': 'Wärmebild der Werte',
    '&Language': '&Sprache',
    'System default': 'Systemvorgabe',
    'The language changes when the IDE starts next.': 'Die Sprache wechselt beim nächsten Start der IDE.',
    '&Run': 'A&usführen',
    '&Run Case': 'Fall &ausführen',
    '&Compile Now': 'Jetzt &kompilieren',
    'Ctrl+B': 'Ctrl+B',
    '&Verify': '&Verifizieren',
    'Cancel Verify': 'Verifikation abbrechen',
    'Shift+F6': 'Shift+F6',
    'Open &Event Log…': '&Ereignisprotokoll öffnen…',
    'Ctrl+Shift+O': 'Ctrl+Shift+O',
    'Step &Forward': 'Schritt &vor',
    'Step &Back': 'Schritt &zurück',
    'Shift+F10': 'Shift+F10',
    'Jump to Next &Change': 'Zur nächsten Ä&nderung',
    'Ctrl+F10': 'Ctrl+F10',
    '&Help': '&Hilfe',
    '&About tensorcode': '&Über tensorcode',
    'About tensorcode': 'Über tensorcode',
    '<b>tensorcode</b> %1<br>A compiler, checked evaluator and visual debugger for small numerical programs.':
        '<b>tensorcode</b> %1<br>Ein Compiler, geprüfter Auswerter und visueller Debugger für kleine numerische Programme.',
    'untitled.py': 'unbenannt.py',
    ' (read-only artifact)': ' (schreibgeschütztes Artefakt)',
    'artifact': 'Artefakt',
    'compile %1 ms': 'Kompilieren %1 ms',
    '%n node(s)': ('%n Knoten', '%n Knoten'),
    'no program': 'kein Programm',
    'run failed': 'Ausführung fehlgeschlagen',
    'Save': 'Speichern',
    'saved %1': '%1 gespeichert',
    'Save source': 'Quelltext speichern',
    'Python (*.py)': 'Python (*.py)',
    'Unsaved changes': 'Ungespeicherte Änderungen',
    'Save the changes to %1?': 'Änderungen an %1 speichern?',
    'Open program': 'Programm öffnen',
    'Programs (*.py *.json);;Python (*.py);;Artifacts (*.json)':
        'Programme (*.py *.json);;Python (*.py);;Artefakte (*.json)',
    'no program to export': 'kein Programm zum Exportieren',
    'Artifacts (*.json)': 'Artefakte (*.json)',
    'Graphviz (*.dot)': 'Graphviz (*.dot)',
    'WGSL (*.wgsl)': 'WGSL (*.wgsl)',
    'SPIR-V (*.spv *.spvasm)': 'SPIR-V (*.spv *.spvasm)',
    'WebAssembly (*.wasm *.wat)': 'WebAssembly (*.wasm *.wat)',
    'Export': 'Exportieren',
    'exported %1': '%1 exportiert',
    'Open event log': 'Ereignisprotokoll öffnen',
    'Event logs (*.jsonl *.json)': 'Ereignisprotokolle (*.jsonl *.json)',
    "'%1' not found": "'%1' nicht gefunden",
    'Severity': 'Schwere',
    'Location': 'Ort',
    'Message': 'Meldung',
    'error': 'Fehler',
    'warning': 'Warnung',
    'note': 'Hinweis',
    'cannot open %1: %2': '%1 kann nicht geöffnet werden: %2',
    'compiled in %1 ms, %2 nodes': 'in %1 ms kompiliert, %2 Knoten',
    'compile failed: %n problem(s)': ('Kompilieren fehlgeschlagen: %n Problem',
                                      'Kompilieren fehlgeschlagen: %n Probleme'),
    'compile or open a program first': 'kompilieren oder öffnen Sie zuerst ein Programm',
    'event log loaded: %n step(s), paused at step 0': ('Ereignisprotokoll geladen: %n Schritt, angehalten bei Schritt 0',
                                                      'Ereignisprotokoll geladen: %n Schritte, angehalten bei Schritt 0'),
    'no program to snapshot': 'kein Programm für einen Snapshot',
    'the snapshot belongs to a different circuit (%1 nodes, this one has %2)':
        'der Snapshot gehört zu einer anderen Schaltung (%1 Knoten, diese hat %2)',
    'snapshot restored at step %1': 'Snapshot bei Schritt %1 wiederhergestellt',
    '# %1 is an artifact: it carries no source, so this view is read-only.\n# The IR text view lists its nodes; the graph shows the circuit.\n':
        '# %1 ist ein Artefakt: Es enthält keinen Quelltext, daher ist diese Ansicht schreibgeschützt.\n# Der IR-Text listet seine Knoten; der Graph zeigt die Schaltung.\n',
    'error: %1': 'Fehler: %1',
    'warning: %1': 'Warnung: %1',
    'Open events…': 'Ereignisse öffnen…',
    'Open an event log (JSON Lines)': 'Ein Ereignisprotokoll öffnen (JSON Lines)',
    'Step 0': 'Schritt 0',
    'Step back (Shift+F10)': 'Schritt zurück (Umschalt+F10)',
    'Step forward (F10)': 'Schritt vor (F10)',
    'Last step': 'Letzter Schritt',
    'no event log': 'kein Ereignisprotokoll',
    'Next change': 'Nächste Änderung',
    "Jump to the next step where the selected node's value changed":
        'Zum nächsten Schritt springen, an dem sich der Wert des gewählten Knotens ändert',
    'Save snapshot…': 'Snapshot speichern…',
    'Save the state at this step as a snapshot': 'Den Zustand bei diesem Schritt als Snapshot speichern',
    'Restore snapshot…': 'Snapshot wiederherstellen…',
    'Restore a snapshot and replay from it': 'Einen Snapshot wiederherstellen und von dort abspielen',
    'Name': 'Name',
    'step %1 of %2': 'Schritt %1 von %2',
    'state %1': 'Zustand %1',
    'output %1': 'Ausgabe %1',
    'event %1': 'Ereignis %1',
    'event line': 'Ereigniszeile',
    'stopped': 'angehalten',
    'step': 'Schritt',
    'current step': 'aktueller Schritt',
    "Check the circuit against the source run by CPython over the inputs' domains (F6)":
        'Die Schaltung gegen den von CPython ausgeführten Quelltext über die Wertebereiche der Eingaben prüfen (F6)',
    'Cancel': 'Abbrechen',
    'not run yet': 'noch nicht ausgeführt',
    'Reference': 'Referenz',
    'an artifact has no source to verify against': 'ein Artefakt hat keinen Quelltext, gegen den verifiziert werden kann',
    'verifying…': 'wird verifiziert…',
    "<b style='color:#1a7f37'>passed</b>: %1 cases%2": "<b style='color:#1a7f37'>bestanden</b>: %1 Fälle%2",
    ' (exhaustive)': ' (vollständig)',
    "<b style='color:#c02020'>%1 mismatch(es)</b> in %2 cases":
        "<b style='color:#c02020'>%1 Abweichung(en)</b> in %2 Fällen",
    'cancelled': 'abgebrochen',
    'loaded in %1 ms, %2 nodes': 'in %1 ms geladen, %2 Knoten',
    'Open…': 'Öffnen…',
    'No circuit: the source does not compile (see Problems).':
        'Keine Schaltung: Der Quelltext lässt sich nicht kompilieren (siehe Probleme).',
    'Snapshot': 'Snapshot',
    'Save or restore the state as a snapshot': 'Den Zustand als Snapshot speichern oder wiederherstellen',
    # Issue 12: replay states, verify panel, cases, navigation, exports.
    '|value| by rank (− blue, + orange)': '|Wert| nach Rang (− blau, + orange)',
    'Out of date: the source does not compile (see Problems). This is the last circuit that compiled.':
        'Veraltet: Der Quelltext lässt sich nicht kompilieren (siehe Probleme). Dies ist die letzte kompilierte Schaltung.',
    'Case:': 'Fall:',
    'Named input cases, saved beside the file (FILE.cases.json)':
        'Benannte Eingabefälle, neben der Datei gespeichert (DATEI.cases.json)',
    'Add': 'Hinzufügen',
    'Keep the current values as a new named case': 'Die aktuellen Werte als neuen benannten Fall behalten',
    'Rename': 'Umbenennen',
    'Add case': 'Fall hinzufügen',
    'Name of the new case:': 'Name des neuen Falls:',
    'case %1': 'Fall %1',
    "a case named '%1' exists already": "ein Fall namens '%1' existiert bereits",
    'Rename case': 'Fall umbenennen',
    'New name:': 'Neuer Name:',
    'True when checked': 'True, wenn angekreuzt',
    "a parameter: its stored value is the default; edits apply to this session's runs and cases":
        'ein Parameter: sein gespeicherter Wert ist die Vorgabe; Änderungen gelten für die Läufe und Fälle dieser Sitzung',
    'parameter': 'Parameter',
    "Showing step %1 of the event log (its event's inputs and outputs); go to step 0 to edit the case.":
        'Schritt %1 des Ereignisprotokolls (Eingaben und Ausgaben seines Ereignisses); zum Bearbeiten des Falls zu Schritt 0 gehen.',
    'fails': 'scheitert',
    'value at step %1: <b>%2</b>': 'Wert in Schritt %1: <b>%2</b>',
    '(the state the step saw; it committed <b>%1</b>)': '(der Zustand, den der Schritt sah; er schrieb <b>%1</b>)',
    " (set in the Inspector; the program's default is %1)": ' (im Inspektor gewählt; die Vorgabe des Programms ist %1)',
    'Find in source (Ctrl+F, F3 next, Shift+F3 previous)': 'Im Quelltext suchen (Strg+F, F3 weiter, Umschalt+F3 zurück)',
    'Replace with (Ctrl+H; Enter replaces and finds the next)': 'Ersetzen durch (Strg+H; Eingabe ersetzt und sucht weiter)',
    'WGSL…': 'WGSL…',
    'SPIR-V…': 'SPIR-V…',
    'WebAssembly…': 'WebAssembly…',
    'Find &Previous': '&Vorheriges suchen',
    '&Replace…': '&Ersetzen…',
    'Ctrl+H': 'Ctrl+H',
    '&Go to Line…': '&Gehe zu Zeile…',
    'Ctrl+L': 'Ctrl+L',
    'Number &Precision': 'Zahlen&genauigkeit',
    '4 significant digits': '4 signifikante Stellen',
    '6 significant digits': '6 signifikante Stellen',
    '10 significant digits': '10 signifikante Stellen',
    'Full (shortest round trip)': 'Voll (kürzeste exakte Darstellung)',
    'step %1: %2': 'Schritt %1: %2',
    'Open': 'Öffnen',
    'not exported: %1': 'nicht exportiert: %1',
    'The program computes in float64; %1 computes in float32, so results can differ in the last digits or overflow earlier.':
        'Das Programm rechnet in float64; %1 rechnet in float32, Ergebnisse können sich daher in den letzten Stellen unterscheiden oder früher überlaufen.',
    'Export (float32)': 'Exportieren (float32)',
    'exported %1 (float32)': '%1 exportiert (float32)',
    'no event log: open one with Run > Open Event Log (Ctrl+Shift+O) to step through it':
        'kein Ereignisprotokoll: Öffnen Sie eines mit Ausführen > Ereignisprotokoll öffnen (Strg+Umschalt+O), um es schrittweise zu durchlaufen',
    'Go to Line': 'Gehe zu Zeile',
    'Line (1 to %1):': 'Zeile (1 bis %1):',
    'cannot load %1: %2': '%1 kann nicht geladen werden: %2',
    'nothing is compiled yet': 'noch nichts kompiliert',
    'the source does not compile (%1); the circuit shown is the last one that compiled':
        'der Quelltext lässt sich nicht kompilieren (%1); die gezeigte Schaltung ist die zuletzt kompilierte',
    'the source does not compile; the circuit shown is the last one that compiled':
        'der Quelltext lässt sich nicht kompilieren; die gezeigte Schaltung ist die zuletzt kompilierte',
    'the source changed since the last compile; compile it first (Ctrl+B)':
        'der Quelltext hat sich seit dem letzten Kompilieren geändert; zuerst kompilieren (Strg+B)',
    'ignored %1: %2': '%1 ignoriert: %2',
    'undefined': 'undefiniert',
    '%%1 = %2%3': '%%1 = %2%3',
    ' (taken)': ' (genommen)',
    ' (not taken)': ' (nicht genommen)',
    "(yes - no) * surrogate'(%%1): yes %2, no %3": "(ja - nein) * Surrogat'(%%1): ja %2, nein %3",
    'snapshot %1 restored at step %2 of the event log; the steps after it replay from its state':
        'Snapshot %1 in Schritt %2 des Ereignisprotokolls wiederhergestellt; die Schritte danach laufen ab seinem Zustand neu',
    'snapshot %1 (step %2) is not on the open event log (steps %3 to %4): the log was closed':
        'Snapshot %1 (Schritt %2) liegt nicht im geöffneten Ereignisprotokoll (Schritte %3 bis %4): das Protokoll wurde geschlossen',
    'snapshot %1 restored at step %2': 'Snapshot %1 in Schritt %2 wiederhergestellt',
    'state %1 (before)': 'Zustand %1 (vorher)',
    "the state this step's event saw; its outputs and node values are computed from it":
        'der Zustand, den das Ereignis dieses Schritts sah; seine Ausgaben und Knotenwerte sind daraus berechnet',
    'state %1 (after)': 'Zustand %1 (nachher)',
    'the state this step committed': 'der Zustand, den dieser Schritt schrieb',
    '…': '…',
    'the source itself, run by CPython': 'der Quelltext selbst, von CPython ausgeführt',
    "A Python file whose function is the reference (empty: the program's own source)":
        'Eine Python-Datei, deren Funktion die Referenz ist (leer: der eigene Quelltext des Programms)',
    'its only function': 'ihre einzige Funktion',
    "The reference file's function (empty: its only one, or the one named like the program's)":
        'Die Funktion der Referenzdatei (leer: ihre einzige oder die gleichnamige)',
    'Absolute tolerance (0 and 0: values must be equal)': 'Absolute Toleranz (0 und 0: Werte müssen gleich sein)',
    'Relative tolerance': 'Relative Toleranz',
    "The circuit's arithmetic for the check": 'Die Arithmetik der Schaltung für die Prüfung',
    "enumerate or sample the inputs' domains": 'Wertebereiche der Eingaben aufzählen oder stichprobenartig prüfen',
    'A JSON Lines file of cases ({"a": 5} per line)': 'Eine JSON-Lines-Datei mit Fällen ({"a": 5} pro Zeile)',
    'Reference:': 'Referenz:',
    'Reference Python file': 'Python-Referenzdatei',
    'Cases:': 'Fälle:',
    'Case file': 'Falldatei',
    'JSON Lines (*.jsonl *.json)': 'JSON Lines (*.jsonl *.json)',
    'atol': 'atol',
    'rtol': 'rtol',
    'dtype': 'dtype',
    "Check the circuit against the reference over the inputs' domains (F6)":
        'Die Schaltung über die Wertebereiche der Eingaben gegen die Referenz prüfen (F6)',
    'Difference': 'Differenz',
    'Click a mismatch to load its inputs as the current case': 'Eine Abweichung anklicken, um ihre Eingaben als aktuellen Fall zu laden',
    "<b style='color:#8a5a00'>stale</b> (the code or the settings changed since; F6 runs it again): %1":
        "<b style='color:#8a5a00'>veraltet</b> (Code oder Einstellungen haben sich seitdem geändert; F6 prüft erneut): %1",
    'an artifact has no source to verify against: choose a reference file':
        'ein Artefakt hat keinen Quelltext zum Verifizieren: wählen Sie eine Referenzdatei',
    'verifying an artifact against a reference file is available on the command line (tensorcode verify --reference)':
        'ein Artefakt gegen eine Referenzdatei zu verifizieren geht auf der Kommandozeile (tensorcode verify --reference)',
    'there is no source to verify': 'es gibt keinen Quelltext zu verifizieren',
    'cannot verify: %1': 'Verifizieren nicht möglich: %1',
    'atol and rtol must be numbers': 'atol und rtol müssen Zahlen sein',
    'loop iteration: %1': 'Schleifendurchlauf: %1',
    'iteration %1': 'Durchlauf %1',
    '<b>%1</b><br>%2 nodes, layers %3 to %4<br>click to open': '<b>%1</b><br>%2 Knoten, Ebenen %3 bis %4<br>zum Öffnen klicken',
    "<b style='color:#1a7f37'>passed</b>: %1 cases%2 against %3": "<b style='color:#1a7f37'>bestanden</b>: %1 Fälle%2 gegen %3",
    "<b style='color:#c02020'>%1 mismatch(es)</b> in %2 cases against %3":
        "<b style='color:#c02020'>%1 Abweichung(en)</b> in %2 Fällen gegen %3",
}

def main() -> int:
    path = Path(__file__).with_name('tensorcode_de.ts')
    tree = ET.parse(path)
    missing = []
    for msg in tree.iter('message'):
        src = msg.find('source').text or ''
        tr = msg.find('translation')
        if src not in DE:
            missing.append(src)
            continue
        de = DE[src]
        tr.attrib.pop('type', None)
        for child in list(tr):
            tr.remove(child)
        if msg.get('numerus') == 'yes':
            tr.text = None
            forms = de if isinstance(de, tuple) else (de, de)
            for f in forms:
                ET.SubElement(tr, 'numerusform').text = f
        else:
            tr.text = de
    if missing:
        print('no German text for:', *map(repr, missing), sep='\n  ', file=sys.stderr)
        return 1
    ET.indent(tree, space='    ')
    body = ET.tostring(tree.getroot(), encoding='unicode')
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + '\n', encoding='utf-8')
    return 0

if __name__ == '__main__':
    sys.exit(main())
