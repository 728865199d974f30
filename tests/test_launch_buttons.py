"""The HTML edition's launch buttons (tokenpath._sphinx.launch): off and buildable without a
repository address, on with one, refused for an address the theme cannot link to. A
small Sphinx project with the theme and MyST-NB builds a notebook page both ways."""

from __future__ import annotations

import runpy
from pathlib import Path

import nbformat
import pytest

from tokenpath._sphinx import launch

CONF = Path(launch.__file__).with_name("conf.py")


def conf_options(monkeypatch, **env) -> dict:
    for name in ("TOKENPATH_REPOSITORY_URL", "TOKENPATH_REPOSITORY_BRANCH"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))["html_theme_options"]


def test_the_book_s_configuration_has_no_launch_button_without_a_repository(monkeypatch, capsys):
    options = conf_options(monkeypatch)
    assert not {"launch_buttons", "repository_url", "path_to_docs"} & set(options)
    assert "launch buttons off: no public repository configured" in capsys.readouterr().out


def test_the_book_s_configuration_turns_binder_on_with_a_repository(monkeypatch, capsys):
    options = conf_options(monkeypatch, TOKENPATH_REPOSITORY_URL="https://github.com/someone/tokenpath/",
                           TOKENPATH_REPOSITORY_BRANCH="pages")
    assert options["repository_url"] == "https://github.com/someone/tokenpath"
    assert options["repository_branch"] == "pages" and options["path_to_docs"] == "notebooks"
    assert options["launch_buttons"] == {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"}
    assert "launch buttons on: https://github.com/someone/tokenpath (pages)" in capsys.readouterr().out


def test_the_repository_can_come_from_pyproject(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n[project.urls]\nRepository = "https://gitlab.com/team/tokenpath.git"\n')
    s = launch.launch_settings({}, pyproject)
    assert s.on and s.url == "https://gitlab.com/team/tokenpath" and "[project.urls] Repository" in s.reason
    # the environment variable wins
    s = launch.launch_settings({"TOKENPATH_REPOSITORY_URL": "https://github.com/a/b"}, pyproject)
    assert s.url == "https://github.com/a/b"


def test_this_checkout_configures_no_repository_today():
    # the book has no public address yet; when pyproject.toml gains one, this test says so
    assert launch.launch_settings({}).on is False


@pytest.mark.parametrize("url", ["http://github.com/a/b", "https://example.org/a/b", "https://github.com/a",
                                 "github.com/a/b", "https://github.com/a/b/tree/main", "file:///srv/repo"])
def test_addresses_the_theme_cannot_link_are_refused(url):
    s = launch.launch_settings({"TOKENPATH_REPOSITORY_URL": url})
    assert not s.on and s.reason.startswith("off: TOKENPATH_REPOSITORY_URL=") and launch.theme_options(s) == {}


def build_page(tmp_path, options: dict) -> str:
    """Build one notebook page with sphinx-book-theme and MyST-NB and these theme options."""
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A page\n\nText.")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src / "page.ipynb")
    overrides = {"extensions": ["myst_nb"], "html_theme": "sphinx_book_theme", "nb_execution_mode": "off",
                 "root_doc": "page", "html_theme_options": options}
    app = Sphinx(str(src), None, str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                 confoverrides=overrides, status=None, warning=None, freshenv=True)
    app.build()
    assert app.statuscode == 0
    return (tmp_path / "out" / "page.html").read_text(encoding="utf-8")


def test_a_page_builds_without_a_button_when_off_and_with_binder_s_link_when_on(tmp_path):
    off = build_page(tmp_path / "off", launch.theme_options(launch.launch_settings({}, tmp_path / "none.toml")))
    assert "mybinder.org" not in off
    on = build_page(tmp_path / "on", launch.theme_options(
        launch.launch_settings({"TOKENPATH_REPOSITORY_URL": "https://github.com/someone/tokenpath"})))
    assert "https://mybinder.org/v2/gh/someone/tokenpath/main?urlpath=lab/tree/notebooks/page.ipynb" in on
