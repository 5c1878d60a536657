"""One sanitising function per output target, for text the CLI did not write itself.

Model, task and file names, paths and plugin descriptions come from result files and plugins that
anyone can write. Each target gets them through exactly one function here:

* ``terminal`` (rich tables and messages): control characters (ANSI escape sequences, ``\\r``,
  BEL, C1 codes) and bidirectional overrides (U+202E, ...) removed, rich markup escaped;
* ``plain`` (CSV, ``cite``, anything echoed without rich): the same removal, no markup;
* ``markdown`` (a GFM table cell or a paragraph): the same removal, line breaks joined, every
  character with inline meaning escaped, so no HTML, link, code span or extra cell can start;
* ``latex`` (a tabular cell or a caption): the same removal, all whitespace runs (a blank line
  is a paragraph break, fatal inside a tabular) made one space, every special character escaped,
  and characters pdflatex cannot set with its default fonts written with commands or replaced;
* ``json_text`` (``--format json``): JSON, with the removed characters written as ``\\uXXXX``
  escapes (the same string to a JSON reader; nothing that moves a terminal's cursor or flips text).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

# Bidirectional formatting characters (Unicode's Bidi_Control property): they reorder what follows
# them on screen ("Trojan Source"), so a name can show as another.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 controls but tab and newline, DEL, C1 controls (ESC starts ANSI sequences; CR rewrites the line).
_CONTROL = "".join(chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])
# A whole ANSI sequence (CSI "ESC [ ... m", OSC "ESC ] ... BEL"), so no "[31m" is left behind.
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?)")
_UNSAFE = re.compile(f"[{re.escape(_BIDI + _CONTROL)}]")
_UNSAFE_OR_BREAK = re.compile(f"[{re.escape(_BIDI + _CONTROL)}\u2028\u2029]")


def plain(text: object) -> str:
    """``text`` without control characters (tab and newline kept) and without bidirectional overrides."""
    text = str(text)
    if text.isascii() and text.isprintable():  # the common case, ten times faster than the expressions
        return text
    return _UNSAFE.sub("", _ANSI.sub("", text))


# rich reads a backslash before any "[" as an escape, even where no tag follows ("\[1" prints "[1"), and its
# escape() leaves such a bracket alone: that backslash gets another, so the text prints as itself.
_BACKSLASH_BEFORE_NON_TAG = re.compile(r"\\\[(?![a-z#/@][^\[]*?\])")


def terminal(text: object) -> str:
    """For rich: ``plain`` with rich's markup escaped (a name "[red]x" or "\\[1" is printed as it is)."""
    from rich.markup import escape

    body = plain(text)
    core = body.rstrip("\\")
    # the closing tag after it reads the trailing backslashes two for one (escape() doubles a lone one only)
    trailing = "\\" * (2 * (len(body) - len(core)))
    return _BACKSLASH_BEFORE_NON_TAG.sub(r"\\\\[", escape(core)) + trailing


def json_text(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (non-ASCII kept readable), with control and bidi characters as ``\\uXXXX`` escapes."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    return _UNSAFE_OR_BREAK.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# -- Markdown (GitHub Flavored) ------------------------------------------------------------------------

# Every character that can open or close an inline construct is backslash-escaped (CommonMark allows a
# backslash before any ASCII punctuation, so the text reads the same): emphasis (* _), code spans (`),
# links and images ([ ]), raw HTML and autolinks (< >), entities (&), strikethrough (~) and table
# cells (|). GFM's bare autolinks are broken too: the colon of "scheme://" and the dot of "www.".
# Block constructs (headings, lists, link definitions) cannot start: every line begins with our text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~])|:(?=//)|(?<=www)\.", re.IGNORECASE)


def markdown(text: object) -> str:
    """One line of GFM-safe inline text: no HTML, link, image, code span, emphasis or extra table cell."""
    one_line = " ".join(plain(text).split())
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), one_line)


# -- LaTeX (pdflatex with its default fonts and UTF-8 input) ------------------------------------------

_LATEX_COMMANDS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"$\$$",  # \$ alone takes the dollar from a font pdflatex would draw as a bitmap
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",  # in the default OT1 font < and > print as ¡ and ¿
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # the default OT1 font has no straight quotes (" prints ”; \textquotedbl is an error): the typewriter's
    '"': r'\texttt{"}',
    "`": r"\texttt{\char96}",
    # the symbols our tables print
    "≈": r"$\approx$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "†": r"$^\dagger$",
    "−": "$-$",
    "–": "--",
    "—": "---",
    "↓": r"$\downarrow$",
    "↑": r"$\uparrow$",
    "±": r"$\pm$",
    "×": r"$\times$",
    "¬": r"$\neg$",
    "…": r"\ldots{}",
    "·": r"$\cdot$",
    "\u00a0": "~",
    # symbols subset and metric labels use (ComLQ's "¬2in", NegConstraint's "(A - a) ∪ B"), set in math mode
    # from the default fonts' symbol sets (never a bitmap)
    "∪": r"$\cup$",
    "∩": r"$\cap$",
    "∖": r"$\setminus$",
    "∧": r"$\wedge$",
    "∨": r"$\vee$",
    "∈": r"$\in$",
    "∉": r"$\notin$",
    "⊂": r"$\subset$",
    "⊆": r"$\subseteq$",
    "≠": r"$\neq$",
    "∞": r"$\infty$",
    "→": r"$\rightarrow$",
    "←": r"$\leftarrow$",
    "↔": r"$\leftrightarrow$",
    "⇒": r"$\Rightarrow$",
    "÷": r"$\div$",
    "°": r"$^\circ$",
    "µ": r"$\mu$",  # the micro sign
    "‡": r"$^\ddagger$",
}
# Greek letters as math commands (α: $\alpha$); the letters LaTeX sets as Latin ones (omicron, the capitals
# Alpha, Beta, Rho, ...) as those letters.
# fmt: off
_GREEK = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
    "xi", "pi", "rho", "varsigma", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
)
# fmt: on
_GREEK_LETTERS = "αβγδεζηθικλμνξπρςστυφχψωΓΔΘΛΞΠΣΥΦΨΩ"
_LATEX_COMMANDS |= {char: rf"$\{name}$" for char, name in zip(_GREEK_LETTERS, _GREEK, strict=True)}
_LATEX_COMMANDS |= dict(zip("οΑΒΕΖΗΙΚΜΝΟΡΤΧ", "oABEZHIKMNOPTX", strict=True))
# Letters pdflatex sets from UTF-8 input with its default fonts (Latin-1 letters); anything else
# outside printable ASCII is written as its ASCII base letter (é stays é, ő becomes o) or as "?".
_LATEX_LETTERS = set("ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ")


def _latex_char(char: str) -> str:
    if char in _LATEX_COMMANDS:
        return _LATEX_COMMANDS[char]
    if " " <= char <= "~" or char in _LATEX_LETTERS:
        return char
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if " " <= c <= "~")
    return "".join(_latex_char(c) for c in base) if base else "?"


_NUMBER_SIGN = re.compile(r"(?<![\w.])-(?=\d)")  # "-0.0164" is set with a minus sign, not a hyphen


def latex(text: object) -> str:
    """Text for a LaTeX tabular cell or caption: one line, every special character escaped, and only
    characters pdflatex can set with its default fonts."""
    one_line = _NUMBER_SIGN.sub("−", " ".join(plain(text).split()))
    # a hyphen or quote followed by another would make a ligature (-- is an en dash, '' a closing quote)
    return "".join(
        _latex_char(c) + ("{}" if c in "-'" and one_line[i + 1 : i + 2] == c else "") for i, c in enumerate(one_line)
    )
