"""The HTML edition's launch buttons: on only when a public repository is configured.

sphinx-book-theme draws a "launch on Binder" button on every notebook page when
``launch_buttons`` names a BinderHub, but it needs ``repository_url`` to build the link and
fails the whole build (a ``TypeError`` inside the theme) without one. The book has no
address of its own until someone publishes it, so the buttons stay off unless one is
configured, in this order:

1. the environment variable ``TOKENPATH_REPOSITORY_URL`` (``TOKENPATH_REPOSITORY_BRANCH``,
   default ``main``, names the branch Binder builds), e.g.
   ``TOKENPATH_REPOSITORY_URL=https://github.com/someone/tokenpath make book``;
2. ``Repository`` under ``[project.urls]`` in pyproject.toml.

Only ``https://`` addresses of GitHub, GitLab and Bitbucket repositories
(``https://host/owner/name``) are accepted: those are the hosts the theme can name in a
link; anything else is refused with the reason and the buttons stay off. The Binder
image is built from ``binder/`` (environment.yml, postBuild: the engine installed and the
SmolLM2 file fetched); each page's button opens its notebook in JupyterLab.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

__all__ = ["BINDERHUB", "Launch", "launch_settings", "theme_options"]

#: The public BinderHub the button opens.
BINDERHUB = "https://mybinder.org"
#: The hosts whose repository addresses sphinx-book-theme can turn into launch links.
HOSTS = ("github.com", "gitlab.com", "bitbucket.org")
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
_URL = re.compile(r"https://(?P<host>[^/]+)/(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?")


@dataclass(frozen=True)
class Launch:
    """Whether the buttons are on, for which repository and branch, and why."""

    url: str | None  # the repository's address, None when the buttons are off
    branch: str
    reason: str  # where the setting came from, or why the buttons are off

    @property
    def on(self) -> bool:
        return self.url is not None


def _from_pyproject(path: Path) -> str | None:
    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    urls = {k.lower(): v for k, v in project.get("urls", {}).items()}
    return urls.get("repository")


def launch_settings(environ: Mapping[str, str] | None = None, pyproject: Path | None = None) -> Launch:
    """The launch-button setting from ``environ`` (default ``os.environ``) and
    ``pyproject`` (default this checkout's pyproject.toml).

    >>> launch_settings({}, Path("/nonexistent")).reason
    'off: no public repository configured (TOKENPATH_REPOSITORY_URL, or [project.urls] Repository in pyproject.toml)'
    >>> s = launch_settings({"TOKENPATH_REPOSITORY_URL": "https://github.com/someone/tokenpath.git"})
    >>> s.on, s.url, s.branch
    (True, 'https://github.com/someone/tokenpath', 'main')
    >>> launch_settings({"TOKENPATH_REPOSITORY_URL": "http://example.org/x/y"}).reason
    "off: TOKENPATH_REPOSITORY_URL='http://example.org/x/y' is not https://github.com/, gitlab.com/ or bitbucket.org/OWNER/NAME"
    """
    environ = os.environ if environ is None else environ
    branch = environ.get("TOKENPATH_REPOSITORY_BRANCH", "").strip() or "main"
    url, source = environ.get("TOKENPATH_REPOSITORY_URL", "").strip(), "TOKENPATH_REPOSITORY_URL"
    if not url:
        url, source = (_from_pyproject(pyproject or PYPROJECT) or "").strip(), "[project.urls] Repository"
    if not url:
        return Launch(None, branch, "off: no public repository configured (TOKENPATH_REPOSITORY_URL, "
                                    "or [project.urls] Repository in pyproject.toml)")
    match = _URL.fullmatch(url)
    if match is None or match["host"] not in HOSTS:
        return Launch(None, branch, f"off: {source}={url!r} is not https://github.com/, gitlab.com/ or "
                                    "bitbucket.org/OWNER/NAME")
    clean = f"https://{match['host']}/{match['owner']}/{match['name']}"
    return Launch(clean, branch, f"on: {clean} ({branch}) from {source}, Binder at {BINDERHUB}")


def theme_options(launch: Launch) -> dict:
    """The ``html_theme_options`` entries for ``launch``: none when it is off (the theme
    then draws no button and needs no repository), else the repository and a Binder
    button that opens each page's notebook (``notebooks/NAME.ipynb``) in JupyterLab."""
    if not launch.on:
        return {}
    return {
        "repository_url": launch.url,
        "repository_branch": launch.branch,
        "path_to_docs": "notebooks",
        "launch_buttons": {"binderhub_url": BINDERHUB, "notebook_interface": "jupyterlab"},
    }
