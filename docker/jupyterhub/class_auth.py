"""Who may log in to a course hub: learners with the class password, teachers with a password of their own.

Both shipped hub configurations use this file: jupyterhub_config.py (one machine, DockerSpawner) imports
it, and z2jh-values.yaml mounts it into the Kubernetes hub (`--set-file`, docker/README.md). Neither hub
starts without the secrets, so nobody logs in without one:

    WHYGPU_CLASS_PASSWORD    the learners' shared password, 12 characters or more (required)
    WHYGPU_TEACHER_PASSWORD  the teachers' password, 12 characters or more, not the class password
                             (required when WHYGPU_TEACHERS names anyone)
    WHYGPU_CLASS_USERS       comma-separated learner names (empty: any name)
    WHYGPU_TEACHERS          comma-separated admin names

A learner who types a teacher's name gets nothing with the class password: admin names need the
teacher password, compared after JupyterHub's own name normalisation ("Teacher" is "teacher").
"""
import hmac
import sys

from jupyterhub.auth import Authenticator
from traitlets import Unicode

MIN_LENGTH = 12


class ClassPasswordAuthenticator(Authenticator):
    """Learners log in with the class password, admins with the teacher password; no secret, no login."""

    class_password = Unicode("", config=True, help="the learners' shared password")
    teacher_password = Unicode("", config=True, help="the admins' password")

    async def authenticate(self, handler, data):
        name = self.normalize_username((data or {}).get("username", "") or "")
        given = ((data or {}).get("password", "") or "").encode()
        want = self.teacher_password if name in self.admin_users else self.class_password
        if not name or len(want) < MIN_LENGTH:
            return None  # a hub without its secret lets nobody in
        return name if hmac.compare_digest(given, want.encode()) else None


def _names(value):
    return {n.strip() for n in (value or "").split(",") if n.strip()}


def configure(c, env, where="hub config"):
    """Set c's authenticator from env (the variables above); exit, naming the fix, when a secret is missing."""
    class_pw = env.get("WHYGPU_CLASS_PASSWORD", "")
    teacher_pw = env.get("WHYGPU_TEACHER_PASSWORD", "")
    users, teachers = _names(env.get("WHYGPU_CLASS_USERS")), _names(env.get("WHYGPU_TEACHERS"))
    if len(class_pw) < MIN_LENGTH:
        sys.exit(f"{where}: set WHYGPU_CLASS_PASSWORD to a shared password of {MIN_LENGTH} characters or more")
    if teachers and len(teacher_pw) < MIN_LENGTH:
        sys.exit(f"{where}: WHYGPU_TEACHERS names admins: set WHYGPU_TEACHER_PASSWORD to a password of "
                 f"{MIN_LENGTH} characters or more (not the class password)")
    if teachers and teacher_pw == class_pw:
        sys.exit(f"{where}: WHYGPU_TEACHER_PASSWORD must differ from WHYGPU_CLASS_PASSWORD, or every "
                 "learner could log in as a teacher")
    c.JupyterHub.authenticator_class = ClassPasswordAuthenticator
    c.ClassPasswordAuthenticator.class_password = class_pw
    c.ClassPasswordAuthenticator.teacher_password = teacher_pw
    c.Authenticator.admin_users = teachers
    if users:
        c.Authenticator.allowed_users = users | teachers
    else:
        c.Authenticator.allow_all = True  # any name, but only with the password
