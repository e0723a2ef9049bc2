"""Playwright's Chromium with the passkeyd extension, bound to one passkeyd.

    from playwright.sync_api import sync_playwright
    from passkeyd.testing import VirtualAuthenticator
    import passkeyd.playwright

    with sync_playwright() as p, VirtualAuthenticator() as authenticator:
        context = passkeyd.playwright.launch_persistent_context(p, authenticator, "/tmp/profile")
        page = context.pages[0]
        ...

An extension needs a persistent context (a user data directory of its own) in Playwright;
headless works, since Playwright's `--headless` is Chromium's new headless mode, which runs
extensions. Chromium comes from `executable_path` (default `$PASSKEYD_CHROMIUM`, else Debian's
`chromium` on PATH): Playwright's own browser download is not needed. The profile is marked as
unattended automation (see passkeyd.launch_arguments): use a profile made for the test.
"""

from __future__ import annotations

import time

from .launch_arguments import LaunchArguments, LaunchError, browser_args, chromium_binary

__all__ = ["launch_persistent_context", "launch_persistent_context_async", "LaunchError"]

#: How long the extension's service worker may take to start (two busy cores, a cold profile).
EXTENSION_TIMEOUT = 60.0


def _options(launch: LaunchArguments, launch_kwargs: dict) -> dict:
    options = dict(launch_kwargs)
    options.setdefault("executable_path", chromium_binary())
    options.setdefault("headless", True)
    options["args"] = [*launch.extension_arguments, *options.get("args", [])]
    # Playwright starts Chromium with --disable-extensions; --disable-extensions-except wins
    # over it today, but the extension must not depend on that order.
    ignored = options.get("ignore_default_args")
    if ignored is not True:
        options["ignore_default_args"] = [*(ignored or []), "--disable-extensions"]
    return options


def _extension_running(context, launch: LaunchArguments) -> bool:
    return any(worker.url.startswith(launch.extension_origin) for worker in context.service_workers)


def launch_persistent_context(playwright, authenticator, user_data_dir, *, passkeyctl: str | None = None,
                              **launch_kwargs):
    """`playwright.chromium.launch_persistent_context(user_data_dir, ...)` with the passkeyd
    extension loaded and the host installed into that profile for `authenticator`'s socket
    (a passkeyd.testing.VirtualAuthenticator, or anything with `.socket`). Returns once the
    extension's background is running; `launch_kwargs` go to Playwright (`args` are added to
    the extension's)."""
    launch = browser_args(authenticator.socket, str(user_data_dir), passkeyctl, authenticator)
    context = playwright.chromium.launch_persistent_context(launch.profile, **_options(launch, launch_kwargs))
    try:
        deadline = time.monotonic() + EXTENSION_TIMEOUT
        while not _extension_running(context, launch):
            if time.monotonic() > deadline:
                raise LaunchError(f"the passkeyd extension ({launch.extension}) did not start in Chromium")
            try:
                context.wait_for_event("serviceworker", timeout=500)
            except Exception:  # Playwright's TimeoutError: look again
                pass
    except BaseException:
        context.close()
        raise
    return context


async def launch_persistent_context_async(playwright, authenticator, user_data_dir, *,
                                          passkeyctl: str | None = None, **launch_kwargs):
    """The same for Playwright's asyncio API (`async_playwright()`)."""
    import asyncio

    launch = await asyncio.to_thread(browser_args, authenticator.socket, str(user_data_dir), passkeyctl,
                                     authenticator)
    context = await playwright.chromium.launch_persistent_context(launch.profile, **_options(launch, launch_kwargs))
    try:
        deadline = time.monotonic() + EXTENSION_TIMEOUT
        while not _extension_running(context, launch):
            if time.monotonic() > deadline:
                raise LaunchError(f"the passkeyd extension ({launch.extension}) did not start in Chromium")
            try:
                await context.wait_for_event("serviceworker", timeout=500)
            except Exception:
                pass
    except BaseException:
        await context.close()
        raise
    return context
