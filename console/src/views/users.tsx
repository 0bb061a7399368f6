/**
 * Users: list, create, delete (admins). A password is sent once, in the create request's body,
 * and never shown or kept by the page afterwards.
 */
import type { JSX } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { apiPath, toApiError, type ApiError } from "../lib/api-client.js";
import type { Role, User, UserList } from "../lib/contract.js";
import { ErrorNotice, Loading, PageTitle, Time, TypedConfirm, useLoad } from "../components.js";
import { useConsole } from "../context.js";

const roles: Role[] = ["reader", "writer", "admin"];

async function allUsers(get: (cursor: string | null) => Promise<UserList>): Promise<User[]> {
  const users: User[] = [];
  let cursor: string | null = null;
  // Bounded: at most 20 pages of 1,000.
  for (let page = 0; page < 20; page += 1) {
    const list: UserList = await get(cursor);
    users.push(...list.users);
    cursor = list.next_cursor ?? null;
    if (cursor === null) break;
  }
  return users;
}

function CreateUserForm({ onCreated }: { onCreated: (user: User) => void }): JSX.Element {
  const { api, identity, announce } = useConsole();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [tenantId, setTenantId] = useState(identity.tenantId);
  const [role, setRole] = useState<Role>("reader");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const ids = { username: useId(), password: useId(), tenant: useId(), role: useId() };
  return (
    <form
      class="stacked"
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        api
          .request<User>("POST", "v1/admin/users", {
            body: { username: username.trim(), password, tenant_id: tenantId.trim(), role },
          })
          .then(
            (answer) => {
              setBusy(false);
              setUsername("");
              setPassword("");
              announce(`User ${answer.body.username} created`);
              onCreated(answer.body);
            },
            (failure: unknown) => {
              setBusy(false);
              setError(toApiError(failure));
            },
          );
      }}
    >
      <label for={ids.username}>Username</label>
      <input
        id={ids.username}
        required
        autoComplete="off"
        value={username}
        onInput={(event) => setUsername(event.currentTarget.value)}
      />
      <label for={ids.password}>Password</label>
      <input
        id={ids.password}
        type="password"
        required
        autoComplete="new-password"
        value={password}
        onInput={(event) => setPassword(event.currentTarget.value)}
      />
      <label for={ids.tenant}>Tenant</label>
      <input
        id={ids.tenant}
        required
        value={tenantId}
        onInput={(event) => setTenantId(event.currentTarget.value)}
      />
      <label for={ids.role}>Role</label>
      <select id={ids.role} value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
        {roles.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <ErrorNotice error={error} action="Creating the user failed" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Creating…" : "Create user"}
        </button>
      </div>
    </form>
  );
}

export function UsersPage(): JSX.Element {
  const { api, identity, announce } = useConsole();
  const users = useLoad(
    () => allUsers((cursor) => api.get<UserList>("v1/admin/users", { limit: 1000, cursor })),
    [],
  );
  const [deleting, setDeleting] = useState<User | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  useEffect(() => {
    document.title = "Users · ess console";
  }, []);
  const deleteUser = (user: User) => {
    setBusy(true);
    setDeleteError(null);
    api.request<User>("DELETE", apiPath("v1/admin/users", user.username)).then(
      () => {
        setBusy(false);
        setDeleting(null);
        announce(`User ${user.username} deleted`);
        users.reload();
      },
      (failure: unknown) => {
        setBusy(false);
        setDeleteError(toApiError(failure));
      },
    );
  };
  return (
    <section>
      <PageTitle>Users</PageTitle>
      <div class="columns">
        <section aria-labelledby="user-list-heading">
          <h2 id="user-list-heading">All users</h2>
          <ErrorNotice error={users.error} action="Listing users failed" />
          {users.loading && users.data === null ? <Loading what="users" /> : null}
          {users.data !== null ? (
            <table class="data">
              <caption class="offscreen">Users</caption>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="offscreen">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.data.map((user) => (
                  <tr key={user.username}>
                    <td class="mono">{user.username}</td>
                    <td>{user.tenant_id}</td>
                    <td>
                      <span class="badge">{user.role}</span>
                    </td>
                    <td>
                      <Time iso={user.created_at} />
                    </td>
                    <td>
                      <button
                        type="button"
                        class="small danger"
                        disabled={user.username === identity.username}
                        title={
                          user.username === identity.username
                            ? "an admin cannot delete its own user"
                            : undefined
                        }
                        aria-label={`Delete user ${user.username}`}
                        onClick={() => {
                          setDeleteError(null);
                          setDeleting(user);
                        }}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
        <section aria-labelledby="create-user-heading">
          <h2 id="create-user-heading">Create a user</h2>
          <CreateUserForm onCreated={() => users.reload()} />
        </section>
      </div>
      {deleting !== null ? (
        <TypedConfirm
          title="Delete this user?"
          word={deleting.username}
          description={
            <p>
              <code>{deleting.username}</code> can no longer log in, and its tokens are refused from now on.
            </p>
          }
          actionLabel="Delete user"
          busy={busy}
          error={deleteError}
          onConfirm={() => deleteUser(deleting)}
          onClose={() => setDeleting(null)}
        />
      ) : null}
    </section>
  );
}
