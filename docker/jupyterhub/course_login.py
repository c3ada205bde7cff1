"""Who may log in to a course hub: JupyterHub's NativeAuthenticator (jupyterhub-nativeauthenticator).

Each learner signs up at /hub/signup with a name and a password of their own; the account stays inactive
until a teacher approves it at /hub/authorize. Five wrong passwords in a row lock the name for ten
minutes, for the address they came from. Teachers are the hub's admins (or hold the "teacher" role):
their accounts exist from the first start, with the teachers' first password, which each replaces at
/hub/set-password before logging in, so nobody can sign up under a teacher's name first. Passwords are
stored as bcrypt hashes in the hub's database. CourseAuthenticator's docstring lists what else holds.

Both shipped hub configurations use this file: jupyterhub_config.py (one machine, DockerSpawner) imports
it; z2jh-values.yaml mounts it into the Kubernetes hub (whose image ships nativeauthenticator). Neither
hub starts without its secret:

    WHYGPU_TEACHERS          comma-separated teacher (admin) names, at least one (required)
    WHYGPU_TEACHER_PASSWORD_FILE  a file holding the teachers' first password, 12 characters or more
                             (or WHYGPU_TEACHER_PASSWORD holding it, as Kubernetes passes a secret);
                             required. Each teacher replaces it at /hub/set-password before logging in.
    WHYGPU_TEACHER_NETWORKS  optional: teachers log in only from these networks (e.g. 10.1.2.0/24)
    WHYGPU_MAX_PENDING       sign-ups waiting for a teacher at most (default 40)
    WHYGPU_SIGNUPS_PER_ADDRESS  sign-ups per client address per hour (default 10; raise it when a whole
                             class reaches the hub through one NAT address)
    WHYGPU_ADDRESS_FAILURES  failed logins per client address per 10 minutes (default 20)
    WHYGPU_PROXY_HOPS        proxies in front of the hub that append X-Forwarded-For (default 1:
                             configurable-http-proxy; 2 with a TLS proxy or Kubernetes' autohttps)
"""
import asyncio
import collections
import ipaddress
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import bcrypt
from jupyterhub.orm import Base
from nativeauthenticator import NativeAuthenticator
from nativeauthenticator.handlers import ChangePasswordAdminHandler as NativeResetHandler
from nativeauthenticator.handlers import DiscardHandler as NativeDiscardHandler
from nativeauthenticator.handlers import LocalBase, admin_users_scope
from nativeauthenticator.handlers import LoginHandler as NativeLoginHandler
from nativeauthenticator.handlers import SignUpHandler as NativeSignUpHandler
from nativeauthenticator.handlers import ToggleAuthorizationHandler as NativeToggleHandler
from nativeauthenticator.orm import UserInfo
from sqlalchemy import Column, String, inspect
from tornado import web
from tornado.escape import url_escape
from traitlets import Integer, List, Set, Unicode

MIN_TEACHER_PASSWORD = 12
MIN_LEARNER_PASSWORD = 10
FAILED_LOGINS = 5        # wrong passwords in a row before a name is locked, for the address they came from
LOCKOUT_SECONDS = 600    # how long it stays locked
ADDRESS_FAILURES = 20    # failed logins from one address (any names) before that address waits
SIGNUPS_PER_ADDRESS = 10  # sign-ups from one address per SIGNUP_WINDOW
SIGNUP_WINDOW = 3600
MAX_PENDING = 40         # sign-ups waiting for a teacher at once (WHYGPU_MAX_PENDING raises it)
# Refusals that name no account: whether a name exists must not show in the answer or its time.
INVALID = "Invalid username or password."
SIGNUP_SENT = ("Your sign-up was sent to the teacher. Tell them the name you chose: they approve it at "
               "/hub/authorize. If they do not find it there, the name was taken: sign up again with another.")

# What a teacher may do without opening learners' servers: approve sign-ups (admin:users), see and start or
# stop servers, the admin page. Not access:servers (a learner's HTML output would run with the teacher's
# session while every server shares the hub's origin), not tokens of others, not admin (only an admin may
# grant admin, and teachers are not admins then). admin:users includes setting a learner's password
# (/hub/change-password/<name>): every reset is logged (AUDIT) and the learner must choose a new password
# at their next login (docker/README.md, "Security").
TEACHER_SCOPES = ["admin-ui", "admin:users", "admin:servers", "admin:groups", "list:services", "read:services",
                  "read:hub", "read:roles"]


class MustChange(Base):
    """Accounts whose password someone else set (a teacher's reset, the teachers' first password): they log
    in again only after choosing their own at /hub/set-password. A table in the hub's database, like
    NativeAuthenticator's users_info, so a restart keeps it."""

    __tablename__ = "course_must_change"
    __table_args__ = {"extend_existing": True}  # this file may be loaded twice (the z2jh test)
    username = Column(String(255), primary_key=True)


class Limiter:
    """At most `limit` events per key in any `window` seconds (a sliding window, in memory)."""

    def __init__(self, limit, window):
        self.limit, self.window = limit, window
        self.events = collections.defaultdict(collections.deque)

    def _prune(self, key, now):
        q = self.events.get(key)
        while q and q[0] <= now - self.window:
            q.popleft()
        if q is not None and not q:
            del self.events[key]
        return q or ()

    def full(self, key):
        return len(self._prune(key, time.monotonic())) >= self.limit

    def wait(self, key):
        q = self._prune(key, time.monotonic())
        return max(0, q[0] + self.window - time.monotonic()) if q else 0

    def add(self, key):
        self._prune(key, time.monotonic())
        self.events[key].append(time.monotonic())


class _NoTimer:
    """JupyterHub 6 removed its statsd client (jupyterhub PR #5407); NativeAuthenticator 1.3.0's login
    handler still times the login with it. This stands in, timing nothing."""

    def timer(self, *args, **kwargs):
        return self

    def start(self):
        return self

    def stop(self, *args, **kwargs):
        pass


def _minutes(seconds):
    return f"{max(1, round(seconds / 60))} minute(s)"


class LoginHandler(NativeLoginHandler):
    """NativeAuthenticator's login page on JupyterHub 6 (see _NoTimer), answering every refusal the same
    way and in the same time: NativeAuthenticator's own checked the password a second time, on the event
    loop, for existing names only. The authenticator says why it refused (_refusal)."""

    statsd = _NoTimer()

    async def post(self):
        data = {arg: self.get_argument(arg, strip=False) for arg in self.request.arguments}
        data.setdefault("username", "")
        data.setdefault("password", "")
        user = await self.login_user(data)
        if user:
            self._jupyterhub_user = user
            self.redirect(self.get_next_url(user))
            return
        status, error = getattr(self, "_refusal", (200, INVALID))
        self.set_status(status)
        self.finish(await self._render(login_error=error, username=data["username"]))


class SignUpHandler(NativeSignUpHandler):
    """Sign-up that says the same for a free name and a taken one (and takes as long: the password is
    hashed either way, off the event loop), limited per address and by the number of sign-ups waiting."""

    async def post(self):
        auth = self.authenticator
        name = auth.normalize_username(self.get_body_argument("username", "", strip=False))
        password = self.get_body_argument("signup_password", "", strip=False)
        confirmation = self.get_body_argument("signup_password_confirmation", "", strip=False)
        addr = auth.client_address(self)
        status, alert, message = 200, "alert-info", SIGNUP_SENT
        if auth.signups.full(addr):
            status, alert = 429, "alert-danger"
            message = (f"Too many sign-ups from your address: try again in {_minutes(auth.signups.wait(addr))}, "
                       "or ask the teacher.")
        elif auth.pending() >= auth.max_pending:
            status, alert = 503, "alert-danger"
            message = (f"{auth.max_pending} sign-ups are already waiting for the teacher: ask them to approve "
                       "or discard those first.")
        elif password != confirmation:
            alert, message = "alert-danger", "Your password did not match the confirmation. Please try again."
        elif not (name and auth.validate_username(name) and auth.is_password_strong(password)):
            alert = "alert-danger"
            message = ("Be sure your name has no spaces, commas or slashes, and your password has at least "
                       f"{auth.minimum_password_length} characters and is not a common one.")
        else:
            auth.signups.add(addr)
            hashed = await auth.hash_password(password)  # for a taken name too: the same time either way
            if not auth.user_exists(name):
                self.db.add(UserInfo(username=name, password=hashed))
                self.db.commit()
                auth.log.info("course_login: sign-up %s from %s waits for a teacher", name, addr)
        self.set_status(status)
        self.finish(await self.render_template(
            "signup.html", ask_email=False, result_message=message, alert=alert, two_factor_auth=False,
            recaptcha_key=None, tos=auth.tos))


CONFIRM = """{% extends "page.html" %}
{% block main %}
<div class="container">
  <h1>{{ question }}</h1>
  <form method="post" action="{{ action }}">
    <input type="hidden" name="_xsrf" value="{{ xsrf }}"/>
    <button type="submit" class="btn btn-jupyter">{{ button }}</button>
    <a class="btn btn-default" href="{{ base_url }}authorize">Back</a>
  </form>
</div>
{% endblock %}
"""


async def _confirm(handler, question, button):
    """A page whose button POSTs to this URL: a link (perhaps from another site) changes nothing; the POST
    carries JupyterHub's XSRF token, which JupyterHub checks."""
    tmpl = handler.settings["jinja2_env"].from_string(CONFIRM)
    ns = dict(handler.template_namespace, question=question, button=button, action=handler.request.path)
    handler.finish(await tmpl.render_async(**ns))


class ToggleAuthorizationHandler(NativeToggleHandler):
    """/hub/authorize/<name>: a GET asks, a POST (with the XSRF token) approves or revokes."""

    @admin_users_scope
    async def get(self, name):
        info = UserInfo.find(self.db, name)
        if info is None:
            raise web.HTTPError(404)
        verb = "Revoke the approval of" if info.is_authorized else "Approve"
        await _confirm(self, f"{verb} {name}?", verb.split()[0])

    @admin_users_scope
    async def post(self, name):
        if UserInfo.find(self.db, name) is None:
            raise web.HTTPError(404)
        info = UserInfo.change_authorization(self.db, name)
        self.authenticator.audit(self, "approved" if info.is_authorized else "revoked the approval of", name)
        self.redirect(self.hub.base_url + "authorize#" + url_escape(name))


class DiscardHandler(NativeDiscardHandler):
    """/hub/discard/<name>: a GET asks, a POST (with the XSRF token) discards the waiting sign-up."""

    @admin_users_scope
    async def get(self, name):
        await _confirm(self, f"Discard the sign-up of {name}?", "Discard")

    @admin_users_scope
    async def post(self, name):
        auth = self.authenticator
        info = auth.get_user(name)
        if info is not None and not info.is_authorized:  # NativeAuthenticator's discard, as a POST
            auth.audit(self, "discarded the sign-up of", name)
            auth.delete_user(type("User", (), {"name": name}))
            if self.users.get(name) is not None:
                self.users.delete(name)
        self.redirect(self.hub.base_url + "authorize")


class ResetPasswordHandler(NativeResetHandler):
    """/hub/change-password/<name>, a teacher setting a learner's password: logged (AUDIT), and the learner
    must choose their own at their next login."""

    @admin_users_scope
    async def get(self, name):
        if not self.authenticator.user_exists(name):
            raise web.HTTPError(404)
        self.finish(await self.render_template("change-password-admin.html", user_name=name))

    @admin_users_scope
    async def post(self, name):
        auth = self.authenticator
        new = self.get_body_argument("new_password", "", strip=False)
        if new != self.get_body_argument("new_password_confirmation", "", strip=False):
            alert, message = "alert-danger", "The new password didn't match the confirmation. Please try again."
        elif not (auth.user_exists(name) and auth.is_password_strong(new)):
            alert = "alert-danger"
            message = f"Be sure the new password has at least {auth.minimum_password_length} characters and is not a common one."
        else:
            await auth.set_password(name, new, must_change=True)
            auth.audit(self, "reset the password of", name)
            alert = "alert-success"
            message = (f"The password of {name} is set. {name} logs in with it once, to choose a new one; "
                       "this reset is in the hub's log.")
        self.finish(await self.render_template("change-password-admin.html", user_name=name,
                                               result_message=message, alert=alert))


SET_PASSWORD = """{% extends "page.html" %}
{% block main %}
<div class="container col-md-6 col-md-offset-3">
  <h1>Choose your own password</h1>
  <p>Your password was set by someone else (a teacher's reset, or the teachers' first password).
     Enter it once more, then a new one only you know.</p>
  {% if message %}<div class="alert {{ alert }}" role="alert">{{ message }}</div>{% endif %}
  <form method="post" action="{{ base_url }}set-password">
    <input type="hidden" name="_xsrf" value="{{ xsrf }}"/>
    <label for="u">Name</label><input id="u" class="form-control" name="username" autocapitalize="off" required/>
    <label for="o">Password you were given</label><input id="o" class="form-control" type="password" name="old_password" required/>
    <label for="n">New password</label><input id="n" class="form-control" type="password" name="new_password" required/>
    <label for="c">New password again</label><input id="c" class="form-control" type="password" name="new_password_confirmation" required/>
    <button type="submit" class="btn btn-jupyter">Set my password</button>
  </form>
</div>
{% endblock %}
"""


class SetPasswordHandler(LocalBase):
    """/hub/set-password: an account whose password someone else set chooses its own before logging in.
    Checked like a login (same limits, same answer for a wrong name or password)."""

    async def _page(self, status=200, message="", alert="alert-danger"):
        self.set_status(status)
        tmpl = self.settings["jinja2_env"].from_string(SET_PASSWORD)
        self.finish(await tmpl.render_async(**dict(self.template_namespace, message=message, alert=alert)))

    async def get(self):
        await self._page()

    async def post(self):
        auth = self.authenticator
        name = auth.normalize_username(self.get_body_argument("username", "", strip=False))
        old = self.get_body_argument("old_password", "", strip=False)
        new = self.get_body_argument("new_password", "", strip=False)
        if not await auth.check(self, name, old):
            status, error = getattr(self, "_refusal", (200, INVALID))
            return await self._page(status, error)
        if not auth.must_change(name):
            return await self._page(200, "Your password is your own already: log in, or change it at "
                                         "/hub/change-password once logged in.", "alert-info")
        if new != self.get_body_argument("new_password_confirmation", "", strip=False):
            return await self._page(200, "The new password didn't match the confirmation.")
        if new == old or not auth.is_password_strong(new):
            return await self._page(200, f"Choose a new password of at least {auth.minimum_password_length} "
                                         "characters, not a common one and not the one you were given.")
        await auth.set_password(name, new, must_change=False)
        auth.log.warning("course_login AUDIT: %s chose their own password (from %s)", name, auth.client_address(self))
        await self._page(200, "Your password is set: log in with it now.", "alert-success")


DUMMY_HASH = bcrypt.hashpw(b"no account has this password", bcrypt.gensalt())


class CourseAuthenticator(NativeAuthenticator):
    """NativeAuthenticator whose teacher accounts are made at start, before anyone can sign up, and whose
    logins hold against a crowd (docker/README.md, "Security"):

    - the lockout after FAILED_LOGINS wrong passwords is per name *and address*: a stranger locks only
      themselves out of "teacher", not the teacher; each address may fail ADDRESS_FAILURES times (any
      names) per LOCKOUT_SECONDS, then waits (no hashing for it meanwhile);
    - bcrypt runs in a small thread pool, never on the hub's event loop, and for unknown names too
      (against a dummy hash), so a refusal takes as long whether or not the name exists;
    - sign-ups: SIGNUPS_PER_ADDRESS per hour and address, at most max_pending waiting, the same answer
      for a free or taken name;
    - approving, discarding and resetting are POSTs with JupyterHub's XSRF token, and logged (AUDIT);
    - a password someone else set (a reset, the teachers' first one) must be replaced at /hub/set-password
      before its account logs in.

    NativeAuthenticator authorizes a sign-up under an admin's name at once, so whoever signed up first as
    "teacher" would be an admin. Here each teacher name missing from the accounts table is created when the
    hub starts, with teacher_password, already approved; existing accounts are left alone.

    The client's address is the X-Forwarded-For entry proxy_hops from the right: configurable-http-proxy
    appends the address it saw (hops 1), a TLS proxy in front of it the one before (hops 2). Tornado's
    remote_ip would believe a client's own X-Real-Ip header.
    """

    teacher_password = Unicode("", config=True, help="the first password of each teacher account")
    teachers = Set(Unicode(), config=True, help="teacher names (the admins, or holders of the teacher role)")
    teacher_networks = List(Unicode(), config=True, help="if set, teachers log in only from these networks (CIDR)")
    proxy_hops = Integer(1, config=True, help="proxies in front of the hub that append to X-Forwarded-For")
    address_failures = Integer(ADDRESS_FAILURES, config=True, help="failed logins per address per lockout window")
    signups_per_address = Integer(SIGNUPS_PER_ADDRESS, config=True, help="sign-ups per address per hour")
    max_pending = Integer(MAX_PENDING, config=True, help="sign-ups waiting for a teacher at most")
    hash_threads = Integer(2, config=True, help="threads hashing passwords (off the event loop)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "course_must_change" not in inspect(self.db.bind).get_table_names():
            MustChange.__table__.create(self.db.bind)
        self.pool = ThreadPoolExecutor(self.hash_threads, thread_name_prefix="course-login-hash")
        self.failures = Limiter(self.address_failures, self.seconds_before_next_try)
        self.signups = Limiter(self.signups_per_address, SIGNUP_WINDOW)
        self.networks = [ipaddress.ip_network(n, strict=False) for n in self.teacher_networks]
        for name in sorted(set(self.teachers) | set(self.admin_users)):
            if self.user_exists(name):
                continue
            info = self.create_user(name, self.teacher_password)
            if not info:
                raise SystemExit(f"course_login: could not create the teacher account {name!r} (name or password "
                                 "refused by NativeAuthenticator)")
            info.is_authorized = True
            self.db.add(MustChange(username=name))
            self.db.commit()
            self.log.info("course_login: teacher account %s created from the teachers' first password; it "
                          "must choose its own at /hub/set-password", name)

    # --- addresses, hashing, the must-change list -------------------------------------------------
    def client_address(self, handler):
        hops = [a.strip() for a in handler.request.headers.get("X-Forwarded-For", "").split(",") if a.strip()]
        if len(hops) >= self.proxy_hops > 0:
            addr = hops[-self.proxy_hops]
        else:
            addr = getattr(handler.request.connection.context, "_orig_remote_ip", None) or handler.request.remote_ip
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return "unparsable:" + addr[:64]
        if ip.version == 6:
            if ip.ipv4_mapped:
                return str(ip.ipv4_mapped)
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))  # one host holds a /64 or more
        return str(ip)

    async def hash_password(self, password):
        return await asyncio.get_running_loop().run_in_executor(
            self.pool, lambda: bcrypt.hashpw(password.encode(), bcrypt.gensalt()))

    async def check_password(self, password, hashed):
        def check():
            try:
                return bcrypt.checkpw(password.encode(), hashed)
            except ValueError:  # longer than bcrypt's 72 bytes, or a broken hash
                return False
        return await asyncio.get_running_loop().run_in_executor(self.pool, check)

    async def set_password(self, name, password, must_change):
        info = self.get_user(name)
        info.password = await self.hash_password(password)
        flag = self.db.get(MustChange, name)
        if must_change and flag is None:
            self.db.add(MustChange(username=name))
        elif not must_change and flag is not None:
            self.db.delete(flag)
        self.db.commit()

    def must_change(self, name):
        return self.db.get(MustChange, name) is not None

    def pending(self):
        return self.db.query(UserInfo).filter(UserInfo.is_authorized.is_(False)).count()

    def audit(self, handler, what, name):
        who = handler.current_user.name if handler.current_user else "?"
        self.log.warning("course_login AUDIT: %s %s %s (from %s)", who, what, name, self.client_address(handler))

    # --- logins ---------------------------------------------------------------------------------
    async def check(self, handler, name, password):
        """Whether name's password is right, for an approved account that may log in from here; else False
        with handler._refusal = (status, message) for the page. Every path hashes once."""
        addr = self.client_address(handler)
        if self.failures.full(addr):
            handler._refusal = (429, "Too many failed logins from your address: try again in "
                                     f"{_minutes(self.failures.wait(addr))}.")
            self.log.warning("course_login: %s refused: too many failed logins from it", addr)
            return False
        info = self.get_user(name) if name else None
        right = await self.check_password(password, info.password if info else DUMMY_HASH)
        key = (name, addr)
        if not (info and right) or self.is_blocked(key):
            self.add_login_attempt(key)
            self.failures.add(addr)
            return False
        if self.networks and name in self.teachers | set(self.admin_users) and \
                not any(ipaddress.ip_address(addr.split("/")[0]) in n for n in self.networks):
            self.log.warning("course_login: teacher %s refused from %s (not in WHYGPU_TEACHER_NETWORKS)", name, addr)
            self.failures.add(addr)
            return False
        if not info.is_authorized:
            handler._refusal = (200, f"User {name} has not been authorized by an administrator yet.")
            return False
        self.successful_login(key)
        return True

    async def authenticate(self, handler, data):
        name = self.normalize_username(data.get("username") or "")
        if not await self.check(handler, name, data.get("password") or ""):
            return None
        if self.must_change(name):
            handler._refusal = (200, "Your password was set by someone else: choose your own at "
                                     "/hub/set-password, then log in with it.")
            return None
        return name

    def get_handlers(self, app):
        ours = {NativeLoginHandler: LoginHandler, NativeSignUpHandler: SignUpHandler,
                NativeToggleHandler: ToggleAuthorizationHandler, NativeDiscardHandler: DiscardHandler,
                NativeResetHandler: ResetPasswordHandler}
        return [(path, ours.get(handler, handler)) for path, handler in super().get_handlers(app)] + \
            [(r"/set-password", SetPasswordHandler)]


def _names(value):
    return sorted({n.strip().lower() for n in (value or "").split(",") if n.strip()})


def configure(c, env, where="hub config", subdomains=False):
    """Set c's authenticator and the teachers' role from env (the variables above); exit, naming the fix,
    when a secret is missing. Teachers are full admins (who may open learners' servers) only with
    subdomains (each server its own origin) or WHYGPU_TEACHER_ACCESS=yes; otherwise they hold the
    "teacher" role (TEACHER_SCOPES)."""
    teachers = _names(env.get("WHYGPU_TEACHERS"))
    teacher_pw = env.get("WHYGPU_TEACHER_PASSWORD", "")
    if env.get("WHYGPU_TEACHER_PASSWORD_FILE"):
        try:
            with open(env["WHYGPU_TEACHER_PASSWORD_FILE"]) as f:
                teacher_pw = f.read().strip("\n")
        except OSError as e:
            sys.exit(f"{where}: WHYGPU_TEACHER_PASSWORD_FILE: {e}")
    if not teachers:
        sys.exit(f"{where}: set WHYGPU_TEACHERS to the teachers' names: they approve the learners' sign-ups")
    if len(teacher_pw) < MIN_TEACHER_PASSWORD:
        sys.exit(f"{where}: set WHYGPU_TEACHER_PASSWORD_FILE to a file holding a password of {MIN_TEACHER_PASSWORD} "
                 "characters or more (or WHYGPU_TEACHER_PASSWORD to it): the teachers' first password, which "
                 "each replaces at /hub/set-password before logging in")
    try:
        networks = [str(ipaddress.ip_network(n.strip(), strict=False))
                    for n in env.get("WHYGPU_TEACHER_NETWORKS", "").split(",") if n.strip()]
    except ValueError as e:
        sys.exit(f"{where}: WHYGPU_TEACHER_NETWORKS: {e} (comma-separated networks, e.g. 10.1.2.0/24)")
    for var, trait in [("WHYGPU_MAX_PENDING", "max_pending"), ("WHYGPU_SIGNUPS_PER_ADDRESS", "signups_per_address"),
                       ("WHYGPU_ADDRESS_FAILURES", "address_failures"), ("WHYGPU_PROXY_HOPS", "proxy_hops")]:
        if env.get(var):
            if not env[var].isdigit():
                sys.exit(f"{where}: {var} is a whole number")
            setattr(c.CourseAuthenticator, trait, int(env[var]))
    c.CourseAuthenticator.teacher_networks = networks
    # the hub's cookies (login, session, XSRF) are not sent with other sites' requests (POSTs, frames)
    # (JupyterHub passes tornado_settings["cookie_options"] to every cookie it sets, the XSRF one included)
    settings = dict(c.JupyterHub.tornado_settings) if "tornado_settings" in c.JupyterHub else {}
    settings["cookie_options"] = dict(settings.get("cookie_options", {}), samesite="Lax")
    c.JupyterHub.tornado_settings = settings
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
