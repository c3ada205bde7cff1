"""Who may log in to a course hub: JupyterHub's NativeAuthenticator (jupyterhub-nativeauthenticator).

Each learner signs up at /hub/signup with a name and a password of their own; the account stays inactive
until a teacher approves it at /hub/authorize. Five wrong passwords in a row lock the name for ten
minutes. Teachers are the hub's admins: their accounts exist from the first start, with the password of
the WHYGPU_TEACHER_PASSWORD secret (each teacher changes it at /hub/change-password), so nobody can sign
up under a teacher's name first. Passwords are stored as bcrypt hashes in the hub's database.

Both shipped hub configurations use this file: jupyterhub_config.py (one machine, DockerSpawner) imports
it; z2jh-values.yaml mounts it into the Kubernetes hub (whose image ships nativeauthenticator). Neither
hub starts without its secret:

    WHYGPU_TEACHERS          comma-separated teacher (admin) names, at least one (required)
    WHYGPU_TEACHER_PASSWORD  the teachers' first password, 12 characters or more (required)
"""
import sys

from nativeauthenticator import NativeAuthenticator
from nativeauthenticator.handlers import LoginHandler as NativeLoginHandler
from traitlets import Set, Unicode

MIN_TEACHER_PASSWORD = 12
MIN_LEARNER_PASSWORD = 10
FAILED_LOGINS = 5        # wrong passwords in a row before a name is locked
LOCKOUT_SECONDS = 600    # how long it stays locked


# What a teacher may do without opening learners' servers: approve sign-ups (admin:users), see and start or
# stop servers, the admin page. Not access:servers (a learner's HTML output would run with the teacher's
# session while every server shares the hub's origin), not tokens of others, not admin (only an admin may
# grant admin, and teachers are not admins then).
TEACHER_SCOPES = ["admin-ui", "admin:users", "admin:servers", "admin:groups", "list:services", "read:services",
                  "read:hub", "read:roles"]


class _NoTimer:
    """JupyterHub 6 removed its statsd client (jupyterhub PR #5407); NativeAuthenticator 1.3.0's login
    handler still times the login with it. This stands in, timing nothing."""

    def timer(self, *args, **kwargs):
        return self

    def start(self):
        return self

    def stop(self, *args, **kwargs):
        pass


class LoginHandler(NativeLoginHandler):
    """NativeAuthenticator's login page, unchanged, on JupyterHub 6 (see _NoTimer)."""

    statsd = _NoTimer()


class CourseAuthenticator(NativeAuthenticator):
    """NativeAuthenticator whose teacher accounts are made at start, before anyone can sign up.

    NativeAuthenticator authorizes a sign-up under an admin's name at once, so whoever signed up first as
    "teacher" would be an admin. Here each teacher name missing from the accounts table is created when the
    hub starts, with teacher_password, already approved; existing accounts (and passwords changed since)
    are left alone.
    """

    teacher_password = Unicode("", config=True, help="the first password of each teacher account")
    teachers = Set(Unicode(), config=True, help="teacher names (the admins, or holders of the teacher role)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in sorted(set(self.teachers) | set(self.admin_users)):
            if self.user_exists(name):
                continue
            info = self.create_user(name, self.teacher_password)
            if not info:
                raise SystemExit(f"course_login: could not create the teacher account {name!r} (name or password "
                                 "refused by NativeAuthenticator)")
            info.is_authorized = True
            self.db.commit()
            self.log.info("course_login: teacher account %s created from WHYGPU_TEACHER_PASSWORD", name)

    def get_handlers(self, app):
        return [(path, LoginHandler if handler is NativeLoginHandler else handler)
                for path, handler in super().get_handlers(app)]


def _names(value):
    return sorted({n.strip().lower() for n in (value or "").split(",") if n.strip()})


def configure(c, env, where="hub config", subdomains=False):
    """Set c's authenticator and the teachers' role from env (the variables above); exit, naming the fix,
    when a secret is missing. Teachers are full admins (who may open learners' servers) only with
    subdomains (each server its own origin) or WHYGPU_TEACHER_ACCESS=yes; otherwise they hold the
    "teacher" role (TEACHER_SCOPES)."""
    teachers = _names(env.get("WHYGPU_TEACHERS"))
    teacher_pw = env.get("WHYGPU_TEACHER_PASSWORD", "")
    if not teachers:
        sys.exit(f"{where}: set WHYGPU_TEACHERS to the teachers' names: they approve the learners' sign-ups")
    if len(teacher_pw) < MIN_TEACHER_PASSWORD:
        sys.exit(f"{where}: set WHYGPU_TEACHER_PASSWORD to a password of {MIN_TEACHER_PASSWORD} characters or "
                 "more (the teachers' first password; each changes it at /hub/change-password)")
    c.JupyterHub.authenticator_class = CourseAuthenticator
    c.CourseAuthenticator.teacher_password = teacher_pw
    c.CourseAuthenticator.teachers = set(teachers)
    roles = list(c.JupyterHub.load_roles) if "load_roles" in c.JupyterHub else []
    if subdomains or env.get("WHYGPU_TEACHER_ACCESS") == "yes":
        c.Authenticator.admin_users = set(teachers)
    else:
        roles.append({"name": "teacher", "description": "approve sign-ups, manage users and servers",
                      "scopes": TEACHER_SCOPES, "users": teachers})
    c.JupyterHub.load_roles = roles
    # NativeAuthenticator lets in only approved accounts, so every name may try; no list of names to keep
    c.Authenticator.allow_all = True
    c.NativeAuthenticator.open_signup = False            # a teacher approves each sign-up
    c.NativeAuthenticator.minimum_password_length = MIN_LEARNER_PASSWORD
    c.NativeAuthenticator.check_common_password = True
    c.NativeAuthenticator.allowed_failed_logins = FAILED_LOGINS
    c.NativeAuthenticator.seconds_before_next_try = LOCKOUT_SECONDS
    c.NativeAuthenticator.ask_email_on_signup = False
    c.NativeAuthenticator.allow_2fa = False
