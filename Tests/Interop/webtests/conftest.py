"""The suite's fixtures: `rp` (the py_webauthn site), `authenticator` and `page`.

The suite was written first against Chromium's own virtual authenticator over the DevTools
protocol (Playwright's CDP session); `WEBTESTS_AUTHENTICATOR=passkeyd` swaps those two fixtures
for passkeyd's (`passkeyd.pytest_browser`: a throw-away passkeyd and Chromium with the passkeyd
extension) and changes nothing else. test_web_frameworks.py runs the suite both ways.

    WEBTESTS_AUTHENTICATOR=chrome   pytest webtests     # Chromium's virtual authenticator
    WEBTESTS_AUTHENTICATOR=passkeyd pytest webtests     # passkeyd

`@pytest.mark.virtual_authenticator(**options)` gives a test an authenticator with those options
(Python's spelling of CDP's VirtualAuthenticatorOptions: default_backup_eligibility=True, ...).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

INTEROP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(INTEROP))

from browser_flows import RelyingParty  # noqa: E402  (the py_webauthn site the browser suites use)

BACKEND = os.environ.get("WEBTESTS_AUTHENTICATOR")

# `pytest .` in Tests/Interop collects this folder too; the suite runs only when asked which
# authenticator to run on (test_web_frameworks.py runs it on both).
collect_ignore_glob = [] if BACKEND else ["test_*.py"]


def chromium_executable() -> str:
    return os.environ.get("PASSKEYD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def rp():
    site = RelyingParty().start()
    yield site
    site.stop()


if BACKEND == "passkeyd":
    from passkeyd.pytest_browser import (  # noqa: F401  (fixtures, found by name)
        passkeyd_authenticator, passkeyd_context, passkeyd_launch_options, passkeyd_page, passkeyd_playwright,
        pytest_configure)

    @pytest.fixture
    def authenticator(passkeyd_authenticator):
        return passkeyd_authenticator

    @pytest.fixture
    def page(passkeyd_page):
        return passkeyd_page

elif BACKEND == "chrome":
    from playwright.sync_api import sync_playwright

    from chrome_authenticator import ChromeVirtualAuthenticator

    def pytest_configure(config):
        config.addinivalue_line("markers", "virtual_authenticator(**options): the test's authenticator options")

    @pytest.fixture(scope="session")
    def browser():
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_executable(), headless=True)
            yield browser
            browser.close()

    @pytest.fixture
    def page(browser):
        context = browser.new_context()
        page = context.new_page()
        yield page
        context.close()

    @pytest.fixture
    def authenticator(request, page):
        marker = request.node.get_closest_marker("virtual_authenticator")
        authenticator = ChromeVirtualAuthenticator(page.context.new_cdp_session(page),
                                                   **(marker.kwargs if marker else {}))
        yield authenticator
        authenticator.close()
