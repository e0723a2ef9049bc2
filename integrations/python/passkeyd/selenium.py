"""Selenium's Chrome driver on Chromium with the passkeyd extension, bound to one passkeyd.

    from passkeyd.testing import VirtualAuthenticator
    import passkeyd.selenium

    with VirtualAuthenticator() as authenticator:
        driver = passkeyd.selenium.chrome_driver(authenticator, "/tmp/profile")
        try:
            driver.get("http://localhost:8000/")
            ...
        finally:
            driver.quit()

chromedriver comes from `$PASSKEYD_CHROMEDRIVER`, else PATH (Debian's chromium-driver installs
/usr/bin/chromedriver), and is named to Selenium, so Selenium Manager downloads nothing.
Selenium's own virtual-authenticator commands (`add_virtual_authenticator`, ...) drive Chrome's
authenticator, not passkeyd: use passkeyd.testing.VirtualAuthenticator's methods instead
(docs/testing-web-pages.md maps them).
"""

from __future__ import annotations

import shutil
import os
import time

from .launch_arguments import LaunchError, browser_args, chromium_binary

__all__ = ["chrome_driver", "chromedriver_binary", "LaunchError"]

#: How long the extension's service worker may take to start (two busy cores, a cold profile).
EXTENSION_TIMEOUT = 60.0


def chromedriver_binary() -> str:
    explicit = os.environ.get("PASSKEYD_CHROMEDRIVER")
    if explicit:
        return explicit
    found = shutil.which("chromedriver")
    if not found:
        raise LaunchError("chromedriver is not installed (apt-get install chromium-driver) "
                          "and PASSKEYD_CHROMEDRIVER is not set")
    return found


def chrome_driver(authenticator, user_data_dir, binary_location: str | None = None, headless: bool = True,
                  options=None, *, service=None, passkeyctl: str | None = None):
    """A `selenium.webdriver.Chrome` whose Chromium loads the passkeyd extension, with the host
    installed into `user_data_dir` for `authenticator`'s socket (a
    passkeyd.testing.VirtualAuthenticator, or anything with `.socket`). `options` (ChromeOptions)
    are extended, not replaced. Returns once the extension's background is running."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    launch = browser_args(authenticator.socket, str(user_data_dir), passkeyctl, authenticator)
    options = options or webdriver.ChromeOptions()
    options.binary_location = binary_location or options.binary_location or chromium_binary()
    for argument in launch.arguments:
        options.add_argument(argument)
    if headless:
        options.add_argument("--headless=new")  # the headless mode that runs extensions
    driver = webdriver.Chrome(options=options, service=service or Service(executable_path=chromedriver_binary()))
    try:
        deadline = time.monotonic() + EXTENSION_TIMEOUT
        while not any(target["type"] == "service_worker" and target["url"].startswith(launch.extension_origin)
                      for target in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]):
            if time.monotonic() > deadline:
                raise LaunchError(f"the passkeyd extension ({launch.extension}) did not start in Chromium")
            time.sleep(0.1)
    except BaseException:
        driver.quit()
        raise
    return driver
