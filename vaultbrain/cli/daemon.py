"""daemon, service."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from vaultbrain.cli.help import examples


@click.command(
    "daemon",
    epilog=examples(
        "vaultbrain --vault ~/Vault daemon",
        "vaultbrain --vault ~/Vault daemon --once     # what is due now, then exit",
        "vaultbrain --vault ~/Vault service install   # keep it running as a service",
    ),
)
@click.option(
    "--once", is_flag=True, help="Do what is due (ready lines, changes, retries, jobs), then exit."
)
@click.option(
    "--log-file",
    metavar="PATH",
    type=click.Path(dir_okay=False, writable=True),
    help="Append the log to this file instead of stderr (logrotate may move it).",
)
@click.pass_obj
def daemon_cmd(obj: Any, once: bool, log_file: str | None) -> None:
    """Watch the vault and file each finished inbox line (the main job).

    Stops cleanly on SIGTERM/SIGINT after the current write. Logs go to stderr (journald and
    launchd keep them), or to --log-file when there is no service manager; -v for debug. A
    second daemon on the same vault is refused.
    """
    from vaultbrain.daemon.runner import Daemon

    if log_file:
        click.get_current_context().call_on_close(log_to_file(log_file))
    if not obj.state_dir:  # a state dir given (--state-dir, $VAULTBRAIN_STATE_DIR) stays put
        from vaultbrain.vault.relocate import move_at_start

        move_at_start(obj.vault_dir)  # <vault>/.vaultbrain out of the vault, when safe
    app = obj.app()
    daemon = Daemon(app, once=once)
    restore = daemon.install_signal_handlers() if not once else None
    try:
        stats = daemon.run()
    finally:
        if restore is not None:
            restore()
    if once:
        click.echo(f"took {stats.taken} line(s), processed {stats.processed} capture(s)", err=True)
        if daemon.filer.role.is_filer:  # an observer never takes a line: it said so above
            from vaultbrain.daemon.waiting import settling_lines

            said = settling_lines(app).sentence(app.inbox_rel)
            if said:
                click.echo(said, err=True)


def log_to_file(path: str) -> Callable[[], None]:
    """Send the log to ``path`` (appended) in place of stderr; errors the command itself
    reports still reach stderr. A WatchedFileHandler reopens the file after logrotate moves it.
    Returns what puts the log back as it was (for a run inside another process, as in tests)."""
    import logging
    import logging.handlers

    from vaultbrain.errors import UserError

    try:
        handler = logging.handlers.WatchedFileHandler(path, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the log file {path}: {exc.strerror or exc}") from exc
    # The file has no journal to stamp each line: the time always goes in.
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    replaced = [h for h in root.handlers if type(h) is logging.StreamHandler]  # the CLI's stderr
    for old in replaced:
        root.removeHandler(old)
    root.addHandler(handler)

    def restore() -> None:
        root.removeHandler(handler)
        handler.close()
        for old in replaced:
            root.addHandler(old)

    return restore


@click.group(
    "service",
    epilog=examples(
        "vaultbrain service install --dry-run   # the unit or plist, not installed",
        "vaultbrain service install",
        "vaultbrain service status --json",
    ),
)
def service() -> None:
    """Run the daemon as a systemd user unit (Linux) or a launchd agent (macOS)."""


def _platform(value: str | None) -> str:
    if value:
        return value
    return "macos" if sys.platform == "darwin" else "linux"


@service.command(
    "install",
    epilog=examples(
        "vaultbrain service install --dry-run   # show the file; install nothing",
        "vaultbrain --vault ~/Vault service install",
    ),
)
@click.option(
    "--print", "--dry-run", "print_only", is_flag=True, help="Show the file; install nothing."
)
@click.option("--platform", type=click.Choice(["linux", "macos"]), help="Default: this machine's.")
@click.option("--no-start", is_flag=True, help="Write the file but do not enable/start it.")
@click.pass_obj
def service_install(obj: Any, print_only: bool, platform: str | None, no_start: bool) -> None:
    """Install and start the daemon as a service for this vault."""
    from vaultbrain.daemon.service import install_service, render_service

    app = obj.app()
    plat = _platform(platform)
    spec = render_service(app.vault.root, app.state_dir if obj.state_dir else None, plat)
    if print_only:
        click.echo(spec.text, nl=False)
        return
    messages = install_service(spec, start=not no_start)
    click.echo(f"wrote {spec.path}")
    click.echo(f"it runs {spec.runs}")
    for m in messages:
        click.echo(m)


@service.command("uninstall")
@click.option("--platform", type=click.Choice(["linux", "macos"]))
@click.pass_obj
def service_uninstall(obj: Any, platform: str | None) -> None:
    """Stop and remove the service of this vault."""
    from vaultbrain.daemon.service import render_service, uninstall_service

    app = obj.app()
    spec = render_service(app.vault.root, None, _platform(platform))
    for m in uninstall_service(spec):
        click.echo(m)


@service.command("status")
@click.option("--platform", type=click.Choice(["linux", "macos"]))
@click.option("--json", "as_json", is_flag=True, help="One JSON document.")
@click.pass_obj
def service_status(obj: Any, platform: str | None, as_json: bool) -> None:
    """Whether the service is installed and the daemon runs."""
    from vaultbrain.cli.render import echo_json
    from vaultbrain.daemon.service import render_service, status_lines
    from vaultbrain.daemon.service import service_status as status

    app = obj.app()
    doc = status(render_service(app.vault.root, None, _platform(platform)), app.state_dir)
    if as_json:
        echo_json(doc)
        return
    for line in status_lines(doc):
        click.echo(line)
