"""Compile a table the way a paper would: pdflatex, a plain article with booktabs, the log read back."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PREAMBLE = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
HAVE_PDFLATEX = shutil.which("pdflatex") is not None
SKIP_REASON = "pdflatex is not installed (.ci/run installs Debian's texlive-latex-base and texlive-latex-recommended)"


@dataclass
class Compiled:
    returncode: int
    log: str
    pdf: Path

    @property
    def errors(self) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith("! ")]

    @property
    def overfull(self) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith(("Overfull", "Underfull"))]

    def bitmap_fonts(self) -> list[str]:
        """Type 3 fonts in the PDF: glyphs the default fonts lack, drawn as bitmaps by METAFONT (pdffonts)."""
        if shutil.which("pdffonts") is None:
            return []
        listed = subprocess.run(["pdffonts", str(self.pdf)], capture_output=True, text=True).stdout
        return [line for line in listed.splitlines()[2:] if "Type 3" in line]


def compile_latex(folder: Path, table: str) -> Compiled:
    """``table`` (the CLI's LaTeX) in a minimal article, compiled once in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "doc.tex").write_text(PREAMBLE + table + "\\end{document}\n", encoding="utf-8")
    ran = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (folder / "doc.log").read_text("utf-8", errors="replace") if (folder / "doc.log").exists() else ran.stdout
    return Compiled(ran.returncode, log, folder / "doc.pdf")
