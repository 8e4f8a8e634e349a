"""Signing in to the console the way a browser does: fetch the form, post the token with its CSRF."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.parse
import urllib.request

from flask.testing import FlaskClient

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def sign_in(client: FlaskClient, token: str, name: str = "Bea") -> None:
    """Sign `client` in with HIPPO_CONSOLE_TOKEN `token` (asserts it worked)."""
    page = client.get("/console/login").get_data(as_text=True)
    m = CSRF.search(page)
    assert m, page
    resp = client.post(
        "/console/login", data={"csrf_token": m.group(1), "token": token, "name": name}
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)


def signed_in_opener(base: str, token: str) -> urllib.request.OpenerDirector:
    """A urllib opener with a cookie jar, signed in to the console at `base` (a real server)."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(base + "/console/login", timeout=5) as resp:
        m = CSRF.search(resp.read().decode())
    assert m
    form = urllib.parse.urlencode({"csrf_token": m.group(1), "token": token, "name": "dev"})
    with opener.open(base + "/console/login", data=form.encode(), timeout=5) as resp:
        assert "/console/login" not in resp.geturl()
    return opener
