"""pytest fixtures for web pages on passkeyd, in pytest-playwright's style.

    def test_sign_in(passkeyd_authenticator, passkeyd_page):
        passkeyd_authenticator.add_credential(...)
        passkeyd_page.goto("http://localhost:8000/")
        ...

- `passkeyd_authenticator`: a throw-away passkeyd (passkeyd.testing.VirtualAuthenticator), one
  per test as Chrome's virtual authenticator is one per page. Its options come from
  `@pytest.mark.virtual_authenticator(**options)` (Chrome's VirtualAuthenticatorOptions in
  Python's spelling: `has_user_verification=False`, `default_backup_eligibility=True`, ...).
- `passkeyd_context`: Playwright's Chromium with the passkeyd extension in a fresh profile,
  bound to that authenticator (passkeyd.playwright.launch_persistent_context);
  `passkeyd_launch_options` (override it) gives Playwright's launch arguments.
- `passkeyd_page`: the context's page.
- `passkeyd_driver`: the same through Selenium (passkeyd.selenium.chrome_driver).
- `passkeyd_firefox`: Firefox ESR with the passkeyd add-on in a HOME of its own, bound to that
  authenticator, driven over WebDriver BiDi (passkeyd.firefox.launch);
  `passkeyd_firefox_options` (override it) gives launch's keyword arguments.

Installing the package loads these (passkeyd.pytest_plugin, its pytest11 entry point, names this
module in its `pytest_plugins`); `-p passkeyd.pytest_browser` and `pytest_plugins =
["passkeyd.pytest_browser"]` still work, and `-p no:passkeyd.pytest_browser` leaves them out. Every
name starts with `passkeyd_`, so none is pytest-playwright's. Playwright and Selenium are imported
only by the fixtures that use them: a suite needs only the one it drives.
"""

from __future__ import annotations

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "virtual_authenticator(**options): options of the test's passkeyd_authenticator "
        "(passkeyd.testing.VirtualAuthenticator's arguments)")


@pytest.fixture
def passkeyd_authenticator(request):
    """A passkeyd of the test's own, configured by its `virtual_authenticator` mark."""
    from .testing import VirtualAuthenticator

    marker = request.node.get_closest_marker("virtual_authenticator")
    with VirtualAuthenticator(**(marker.kwargs if marker else {})) as authenticator:
        yield authenticator


@pytest.fixture(scope="session")
def passkeyd_playwright(request):
    """Playwright's sync API for the session: pytest-playwright's `playwright` fixture where that
    plugin is installed (one thread cannot run two sync Playwright drivers), else one of ours."""
    try:
        yield request.getfixturevalue("playwright")
        return
    except pytest.FixtureLookupError:
        pass
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def passkeyd_launch_options() -> dict:
    """Keyword arguments for Playwright's launch_persistent_context (headless, executable_path,
    args, slow_mo, ...); override this fixture to change them."""
    return {}


@pytest.fixture
def passkeyd_context(passkeyd_playwright, passkeyd_authenticator, passkeyd_launch_options, tmp_path_factory):
    """Chromium with the passkeyd extension, in a profile of its own bound to the test's passkeyd."""
    from .playwright import launch_persistent_context

    profile = tmp_path_factory.mktemp("passkeyd-chromium-profile")
    context = launch_persistent_context(passkeyd_playwright, passkeyd_authenticator, profile,
                                        **passkeyd_launch_options)
    yield context
    context.close()


@pytest.fixture
def passkeyd_page(passkeyd_context):
    """The persistent context's first page (Playwright opens one with the context)."""
    page = passkeyd_context.pages[0] if passkeyd_context.pages else passkeyd_context.new_page()
    yield page


@pytest.fixture
def passkeyd_driver(passkeyd_authenticator, tmp_path_factory):
    """Selenium's Chrome driver with the passkeyd extension, bound to the test's passkeyd."""
    from .selenium import chrome_driver

    driver = chrome_driver(passkeyd_authenticator, tmp_path_factory.mktemp("passkeyd-selenium-profile"))
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def passkeyd_firefox_options() -> dict:
    """Keyword arguments for passkeyd.firefox.launch (binary, headless, prefs, extension, ...);
    override this fixture to change them."""
    return {}


@pytest.fixture
def passkeyd_firefox(passkeyd_authenticator, passkeyd_firefox_options, tmp_path_factory):
    """Firefox ESR with the passkeyd add-on, the host installed into a HOME of its own for the
    test's passkeyd: a passkeyd.firefox.Firefox (`navigate`, `evaluate`, `wait_for`, `new_page`)."""
    from .firefox import launch

    home = tmp_path_factory.mktemp("passkeyd-firefox-home")
    with launch(passkeyd_authenticator, home=str(home), **passkeyd_firefox_options) as firefox:
        yield firefox
