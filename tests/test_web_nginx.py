"""The throwaway nginx of the tests and ``bench serve --proxy nginx``
(:mod:`dominolab.web.edge.nginx`): a site file it cannot use is one NginxError, and its
private folder does not outlive the failure."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from dominolab.web.edge.nginx import NginxError, NginxProcess, find_nginx

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("site_text", [None, "server { listen 8080; }\n"])
def test_a_site_file_it_cannot_use_is_an_nginx_error_and_leaves_no_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site_text: str | None) -> None:
    assert find_nginx() is not None, "Debian's nginx"
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    site = tmp_path / "site.conf"  # missing, or without the lines the bench rewrites
    if site_text is not None:
        site.write_text(site_text)
    proxy = NginxProcess([8000], site=site)
    with pytest.raises(NginxError, match=str(site)):
        proxy.start(timeout=10)
    assert not list(temp.iterdir())
    assert proxy.dir is None
