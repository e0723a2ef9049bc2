"""passkeyd in the test frameworks web developers use (issue 41 items 2–4).

- webtests/: a Playwright suite written against Chromium's own CDP virtual authenticator runs
  again on passkeyd with only its two fixtures swapped (WEBTESTS_AUTHENTICATOR); every test
  passes in both, and both runs are the same tests.
- Selenium with Debian's chromedriver (passkeyd.selenium.chrome_driver): registration and
  sign-in on the same py_webauthn site.
- Chromium launched with exactly what `passkeyctl browser args` prints (plus the DevTools port
  this test drives it through): registration and sign-in, no framework.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# The tree's package, not whatever version an earlier `pip install` left in the venv.
PACKAGE = str(HERE.parent.parent / "integrations" / "python")
sys.path.insert(0, PACKAGE)

from browser_driver import ChromiumPage, Connection, chromium_path, devtools_port, poll  # noqa: E402
from browser_flows import (ALGORITHMS, RelyingParty, assert_registered, assert_signed_in, new_name,  # noqa: E402
                           register, sign_in)
from passkeyd_pin import passkeyctl_binary  # noqa: E402

from passkeyd.pytest_browser import passkeyd_authenticator, passkeyd_driver  # noqa: E402,F401  (fixtures)
from passkeyd.testing import VirtualAuthenticator  # noqa: E402

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")

WEBTESTS = HERE / "webtests"
SUITE_TIMEOUT = 600
RUNS: dict[str, set[str]] = {}  # backend → the test IDs its run passed


def suite_tests() -> set[str]:
    """The suite's test functions, read from its source (what both runs must have run)."""
    names = set()
    for path in WEBTESTS.glob("test_*.py"):
        tree = ast.parse(path.read_text())
        names |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    return names


@pytest.fixture(scope="module")
def rp():
    site = RelyingParty().start()
    yield site
    site.stop()


@pytest.mark.parametrize("backend", ["chrome", "passkeyd"])
def test_the_suite_written_for_chromes_virtual_authenticator_passes_on_both(backend, tmp_path):
    report = tmp_path / "report.xml"
    environment = {**os.environ, "WEBTESTS_AUTHENTICATOR": backend,
                   "PYTHONPATH": os.pathsep.join([PACKAGE, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE",
                          f"--junitxml={report}", str(WEBTESTS)], cwd=HERE, env=environment,
                         capture_output=True, text=True, timeout=SUITE_TIMEOUT)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    cases = ElementTree.parse(report).getroot().iter("testcase")
    outcomes = {case.get("name"): [child.tag for child in case] for case in cases}
    assert {name.split("[")[0] for name in outcomes} == suite_tests(), outcomes
    assert all(not children for children in outcomes.values()), f"not all passed: {outcomes}"
    RUNS[backend] = set(outcomes)
    if len(RUNS) == 2:
        assert RUNS["chrome"] == RUNS["passkeyd"], "both runs are the same tests, parameters included"


def test_selenium_registers_and_signs_in_through_chromedriver(passkeyd_authenticator, passkeyd_driver, rp):
    driver = passkeyd_driver
    driver.set_script_timeout(90)
    driver.get(rp.url())
    name = new_name("selenium")
    registered = driver.execute_script("return rp.register(arguments[0])", {"name": name})
    assert_registered(registered, rp, name, ALGORITHMS["ES256"])
    [stored] = passkeyd_authenticator.get_credentials()
    assert stored.user_name == name and stored.rp_id == rp.rp_id
    assert_signed_in(driver.execute_script("return rp.signIn({})"), rp, name)


class Launched:
    """Chromium started by this test, with the DevTools connection browser_driver's pages use."""

    def __init__(self, arguments: list[str], profile: str):
        self.process = subprocess.Popen([chromium_path(), *arguments, "--remote-debugging-port=0", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            port = devtools_port(profile, self.process)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=30) as reply:
                self.conn = Connection(json.load(reply)["webSocketDebuggerUrl"])
        except BaseException:
            self.close()
            raise

    def new_page(self, url: str) -> ChromiumPage:
        page = ChromiumPage(self, self.conn.call("Target.createTarget", {"url": "about:blank"})["targetId"])
        page.navigate(url)
        return page

    def close(self) -> None:
        if getattr(self, "conn", None):
            self.conn.close()
        self.process.kill()
        self.process.wait(timeout=30)


def test_chromium_launched_with_the_printed_arguments_registers_and_signs_in(rp):
    home = tempfile.mkdtemp(prefix="passkeyd-args-")
    profile = os.path.join(home, "profile")
    try:
        with VirtualAuthenticator() as authenticator:
            printed = subprocess.run([passkeyctl_binary(), "--socket", authenticator.socket, "browser", "args",
                                      "--chromium", "--profile", profile, "--headless"],
                                     capture_output=True, text=True, timeout=60)
            assert printed.returncode == 0, printed.stderr
            arguments = printed.stdout.splitlines()
            assert f"--user-data-dir={profile}" in arguments and "--headless=new" in arguments
            assert any(a.startswith("--load-extension=") for a in arguments)
            script = Path(profile, "NativeMessagingHosts", "passkeyd-browser-host").read_text()
            assert "browser host" in script and "--automation" in script and authenticator.socket in script

            browser = Launched(arguments, profile)
            try:
                poll(lambda: any(t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")
                                 for t in browser.conn.call("Target.getTargets")["targetInfos"]),
                     60, "the extension's service worker never started")
                page = browser.new_page(rp.url())
                name = new_name("args")
                assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
                assert [c.user_name for c in authenticator.get_credentials()] == [name]
                assert_signed_in(sign_in(page), rp, name)
            finally:
                browser.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_browser_args_refuses_firefox_and_a_missing_extension(tmp_path):
    firefox = subprocess.run([passkeyctl_binary(), "browser", "args", "--firefox", "--profile", str(tmp_path / "p")],
                             capture_output=True, text=True, timeout=60)
    assert firefox.returncode == 1 and "WebDriver BiDi" in firefox.stderr, firefox.stderr
    missing = subprocess.run([passkeyctl_binary(), "browser", "args", "--chromium", "--profile", str(tmp_path / "p"),
                              "--extension", str(tmp_path), "--json"], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1
    assert "no manifest.json" in json.loads(missing.stdout)["error"]["message"]
    assert not (tmp_path / "p").exists(), "nothing installed when the arguments cannot be given"


def test_playwrights_asyncio_api_registers_and_signs_in(rp, tmp_path):
    import asyncio

    from playwright.async_api import async_playwright

    import passkeyd.playwright

    async def flow(authenticator) -> tuple[dict, dict]:
        async with async_playwright() as playwright:
            context = await passkeyd.playwright.launch_persistent_context_async(playwright, authenticator,
                                                                                tmp_path / "profile")
            try:
                page = context.pages[0]
                await page.goto(rp.url())
                registered = await page.evaluate(f"rp.register({json.dumps({'name': name})})")
                return registered, await page.evaluate("rp.signIn({})")
            finally:
                await context.close()

    name = new_name("asyncio")
    with VirtualAuthenticator() as authenticator:
        registered, signed_in = asyncio.run(flow(authenticator))
        assert_registered(registered, rp, name, ALGORITHMS["ES256"])
        assert_signed_in(signed_in, rp, name)
        assert [c.user_name for c in authenticator.get_credentials()] == [name]


def test_a_missing_passkeyctl_or_chromium_is_a_clear_error(monkeypatch, tmp_path):
    from passkeyd.launch_arguments import LaunchError, browser_args, chromium_binary

    monkeypatch.setenv("PASSKEYCTL_BIN", str(tmp_path / "no-passkeyctl"))
    with pytest.raises(LaunchError, match="no-passkeyctl"):
        browser_args(str(tmp_path / "sock"), str(tmp_path / "profile"))
    monkeypatch.delenv("PASSKEYD_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LaunchError, match="apt-get install chromium"):
        chromium_binary()
