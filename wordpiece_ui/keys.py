"""Keyboard control of a step view: ← → step, Space plays or pauses, Home/End go to the ends.

Streamlit has no key events of its own, so a few lines of script (in a zero-height
`st.iframe` of our own HTML, nothing loaded from anywhere) listen on the app's page
and click the step view's own buttons; the buttons do the work, so the keys do exactly
what a click does. Keys typed into a text field, a select box or a slider are left alone. A switch or a
radio button keeps the focus after a click (*Ask first*, the sidebar's algorithm): the arrows and Home/End
step from there too (they would otherwise do nothing, or move the radio to the next algorithm); Space is left
to them. A click on a widget's "?" shows its help and never toggles the widget its label belongs to.

Every redraw that replaces the iframe (a toggle, *Got it*, another algorithm, another page and
back) runs the script again, and the listener is replaced with the new one: a listener whose
iframe is gone no longer runs, so keeping the first one would leave the keys dead.
"""

from __future__ import annotations

import json

import streamlit as st



def legend(noun: str = "step") -> str:
    """The keys, as a line to show beside the controls."""
    return f"Keys: ← → previous/next {noun} · Space play/pause · Home/End first/last {noun}"


_SCRIPT = r"""
<script>
(function () {
  const doc = window.parent.document;
  const labels = %s;  // key -> button labels to try, in order
  const before = doc.__wordpieceLabKeys;
  if (before && before.handler) doc.removeEventListener("keydown", before.handler, true);
  const pressEvents = ["pointerdown", "pointerup", "mousedown", "mouseup", "touchstart", "touchend", "click"];
  if (before && before.onHelp) pressEvents.forEach(function (e) { doc.removeEventListener(e, before.onHelp, true); });
  const handler = function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target || {};
    const tag = (target.tagName || "").toLowerCase();
    const role = target.getAttribute ? (target.getAttribute("role") || "") : "";
    const type = (target.type || "").toLowerCase();
    const choice = (tag === "input" && (type === "checkbox" || type === "radio")) || role === "switch" ||
        role === "radio" || role === "checkbox";
    if (choice && event.key === " ") return;  // Space toggles or picks the focused switch or radio
    if (!choice && (tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable ||
        role === "slider" || role === "combobox" || role === "textbox" || role === "listbox")) return;
    const wanted = doc.__wordpieceLabKeys.labels[event.key];
    if (!wanted) return;
    const buttons = Array.from(doc.querySelectorAll("button"));
    for (const label of wanted) {
      // a button's text also holds its icon's name, on a line of its own
      const button = buttons.find(function (b) {
        return b.innerText.split("\n").some(function (line) { return line.trim() === label; });
      });
      if (button) {
        event.preventDefault();
        if (doc.activeElement && doc.activeElement.blur) doc.activeElement.blur();
        if (!button.disabled) button.click();
        return;
      }
    }
  };
  // A switch's "?" sits inside its label, which toggles on a press anywhere in it (Ask first: every hidden step
  // shown to the class). A press on the "?" stops here, before the page's own handlers; its help shows on hover.
  const onHelp = function (event) {
    const t = event.target;
    if (!t || !t.closest) return;
    const help = t.closest('[data-testid="stTooltipIcon"]');
    const label = t.closest("label");
    if (help && label && label.contains(help)) {
      event.stopPropagation();
      if (event.type === "click") event.preventDefault();
    }
  };
  doc.__wordpieceLabKeys = {labels: labels, handler: handler, onHelp: onHelp};
  doc.addEventListener("keydown", handler, true);
  pressEvents.forEach(function (e) { doc.addEventListener(e, onHelp, true); });
})();
</script>
"""


def step_keys(prev: str = "Prev", next_: str = "Next", play: tuple[str, ...] = ("Play", "Pause"),
              first: str = "First", last: str = "Last") -> None:
    """Listen for the step keys on this page; they click the buttons with these labels."""
    labels = {"ArrowLeft": [prev], "ArrowRight": [next_], " ": list(play), "Home": [first], "End": [last]}
    st.iframe(_SCRIPT % json.dumps(labels), height=1)  # (0 is not allowed; one pixel is not seen)
