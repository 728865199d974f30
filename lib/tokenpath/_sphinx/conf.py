"""Sphinx configuration of the HTML edition (``make book``; docs/maintainers.md, "Reading the book as
HTML"). The source directory is ``notebooks/``: the stored notebooks are read as they
are (MyST-NB, execution off), so every page shows the outputs ``make test`` checked.
Everything the pages load ships in the build; nothing is fetched, at build time or
when reading.
"""

project = "tokenpath"
author = "tokenpath"
copyright = "tokenpath authors"
root_doc = "00_index"  # the guide is the landing page (index.html is a copy of it)
language = "en"  # the zh edition is built with -D language=zh_CN (tokenpath._build)
# The Chinese edition's catalogs: locales/<lang>/LC_MESSAGES/<page>.po, one per
# notebook (sphinx-intl's layout); make book passes the folder (tokenpath._build).
gettext_compact = False
gettext_uuid = False
gettext_location = True

extensions = [
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    "tokenpath._sphinx",  # MathML, glossary, sliders, quizzes, fonts, budgets
]
exclude_patterns = ["**.ipynb_checkpoints", ".jupyter-runtime", "zh"]  # zh/: the Chinese notebooks (tokenpath.i18n.notebooks)

# MyST-NB: read the stored outputs; never execute.
nb_execution_mode = "off"
nb_merge_streams = True
nb_output_stderr = "show"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_dmath_double_inline = True
myst_dmath_allow_space = True
# Links in the prose are written for JupyterLab (``04_attention.ipynb#4.2-Why-…``):
# its anchors are the heading text with spaces as hyphens, so MyST's are too.
myst_heading_anchors = 4
myst_heading_slug_func = "tokenpath._sphinx.heading_slug"

# The theme, offline: its own files only, no analytics, no repository buttons.
html_theme = "sphinx_book_theme"
html_title = "tokenpath"
html_static_path = []  # the extension adds its own static folder
templates_path = ["templates"]
# The theme's sidebar, with the link to the PDF edition under the search field (when
# `make pdf` builds the edition; tokenpath/_sphinx/pdflink.py).
html_sidebars = {"**": ["navbar-logo.html", "icon-links.html", "search-button-field.html", "tp-pdf-link.html",
                        "sbt-sidebar-nav.html"]}
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_context = {"default_mode": "auto"}
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "show_navbar_depth": 1,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
    "search_bar_text": "Search the book…",
    "pygments_light_style": "default",
    "pygments_dark_style": "monokai",
}
# Launch buttons (Binder) only when a public repository is configured; without one the
# theme would fail the build, so nothing is set (tokenpath._sphinx.launch says how).
from tokenpath._sphinx.launch import launch_settings, theme_options  # noqa: E402

_launch = launch_settings()
html_theme_options.update(theme_options(_launch))
print(f"make book: launch buttons {_launch.reason}")
html_math_renderer = "mathml"
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_exclude = ".linenos, .gp, .go"
suppress_warnings = ["myst.header"]  # the glossary puts its entries (###) under the title

# A translated paragraph with two links into one page at different anchors would send
# both to the last anchor: Sphinx's i18n transform matches cross-references without
# MyST's target id unless it is excluded from the attributes it compares.
import sphinx.transforms.i18n as _i18n  # noqa: E402

if "reftargetid" not in _i18n.EXCLUDED_PENDING_XREF_ATTRIBUTES:
    _i18n.EXCLUDED_PENDING_XREF_ATTRIBUTES += ("reftargetid",)

# A page declared translated keeps its English heading anchors (links written for the
# English notebooks, ``04_attention.ipynb#4.2-Three-…``, reach it in both editions):
# Sphinx's i18n transform parses each translated message as a document of its own, and
# MyST would store that fragment's heading slugs (the Chinese heading's) as the page's,
# replacing the English ones. A fragment's source ends with "<translated>": it keeps its
# slugs to itself.
from myst_parser.mdit_to_docutils.base import DocutilsRenderer as _Renderer  # noqa: E402

if not getattr(_Renderer._render_finalise, "_tp_keeps_page_slugs", False):
    _finalise = _Renderer._render_finalise

    def _render_finalise(self) -> None:
        if str(self.document.get("source", "")).endswith("<translated>"):
            slugs, self._heading_slugs = self._heading_slugs, {}  # none stored: the page's stay
            try:
                return _finalise(self)
            finally:
                self._heading_slugs = slugs
        return _finalise(self)

    _render_finalise._tp_keeps_page_slugs = True
    _Renderer._render_finalise = _render_finalise
