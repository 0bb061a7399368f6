/**
 * Usage per tenant, with appends and reads per second from the difference of the service's
 * running totals between two polls (../lib/rates.ts); and one tenant with its largest streams.
 */
import type { JSX } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { TenantDetail, TenantList } from "../lib/contract.js";
import { formatBytes, formatCount, formatRate } from "../lib/format.js";
import { newestView, pageSizeDefault } from "../lib/paging.js";
import { CounterRates, type TenantRates } from "../lib/rates.js";
import { ErrorNotice, Fields, Link, Loading, PageTitle, Time, useInterval, useLoad } from "../components.js";
import { useConsole } from "../context.js";

/** How often the usage is read again for the live rates. */
export const usagePollMs = 3000;

function useRates(samples: TenantList["tenants"] | null): Map<string, TenantRates> {
  const counter = useMemo(() => new CounterRates(), []);
  const [rates, setRates] = useState(new Map<string, TenantRates>());
  useEffect(() => {
    if (samples !== null) setRates(counter.update(Date.now(), samples));
  }, [samples, counter]);
  return rates;
}

export function TenantsPage(): JSX.Element {
  const { api, route } = useConsole();
  const list = useLoad(() => api.get<TenantList>("v1/admin/tenants", { limit: 1000 }), []);
  useInterval(list.reload, usagePollMs);
  const rates = useRates(list.data?.tenants ?? null);
  useEffect(() => {
    document.title = "Tenants · ess console";
  }, []);
  return (
    <section>
      <PageTitle>Tenants</PageTitle>
      <p class="muted">
        Rates are measured between reads of the usage, every {usagePollMs / 1000} s while this page is open.
      </p>
      <ErrorNotice error={list.error} action="Reading the tenants' usage failed" />
      {list.loading && list.data === null ? <Loading what="tenants" /> : null}
      {list.data !== null ? (
        <table class="data">
          <caption class="offscreen">Usage per tenant</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col" class="num">
                Streams
              </th>
              <th scope="col" class="num">
                Events
              </th>
              <th scope="col" class="num">
                Size
              </th>
              <th scope="col" class="num">
                Appends/s
              </th>
              <th scope="col" class="num">
                Reads/s
              </th>
              <th scope="col" class="num">
                Appends
              </th>
              <th scope="col" class="num">
                Reads
              </th>
              <th scope="col">Last append</th>
            </tr>
          </thead>
          <tbody>
            {list.data.tenants.map((tenant) => {
              const rate = rates.get(tenant.tenant_id);
              return (
                <tr key={tenant.tenant_id}>
                  <td>
                    <Link route={{ page: "tenant", tenantId: tenant.tenant_id, tenant: route.tenant }}>
                      {tenant.tenant_id}
                    </Link>
                  </td>
                  <td class="num">{formatCount(tenant.streams)}</td>
                  <td class="num">{formatCount(tenant.events)}</td>
                  <td class="num">{formatBytes(tenant.bytes)}</td>
                  <td class="num">{formatRate(rate?.appendsPerSecond)}</td>
                  <td class="num">{formatRate(rate?.readsPerSecond)}</td>
                  <td class="num">{formatCount(tenant.appends_total)}</td>
                  <td class="num">{formatCount(tenant.reads_total)}</td>
                  <td>
                    <Time iso={tenant.last_append_at} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {list.data !== null && list.data.tenants.length === 0 ? (
        <p class="empty">No tenant has data yet.</p>
      ) : null}
    </section>
  );
}

export function TenantPage({ tenantId }: { tenantId: string }): JSX.Element {
  const { api } = useConsole();
  const detail = useLoad(
    () => api.get<TenantDetail>(`v1/admin/tenants/${encodeURIComponent(tenantId)}`),
    [tenantId],
  );
  useInterval(detail.reload, usagePollMs);
  const samples = useMemo(() => (detail.data ? [detail.data] : null), [detail.data]);
  const rate = useRates(samples).get(tenantId);
  useEffect(() => {
    document.title = `Tenant ${tenantId} · ess console`;
  }, [tenantId]);
  const data = detail.data;
  return (
    <section>
      <PageTitle>
        <span class="muted">Tenant</span> {tenantId}
      </PageTitle>
      <nav class="pager" aria-label="Tenant">
        <Link route={{ page: "tenants", tenant: null }}>All tenants</Link>
        <Link route={{ page: "streams", prefix: "", cursor: null, limit: pageSizeDefault, tenant: tenantId }}>
          Browse its streams
        </Link>
      </nav>
      <ErrorNotice error={detail.error} action="Reading the tenant failed" />
      {detail.loading && data === null ? <Loading what="the tenant" /> : null}
      {data !== null ? (
        <>
          <Fields
            rows={[
              ["Streams", formatCount(data.streams)],
              ["Events", formatCount(data.events)],
              ["Size", formatBytes(data.bytes)],
              ["Appends/s", formatRate(rate?.appendsPerSecond)],
              ["Reads/s", formatRate(rate?.readsPerSecond)],
              ["Appends", formatCount(data.appends_total)],
              ["Reads", formatCount(data.reads_total)],
              ["Last append", <Time iso={data.last_append_at} />],
            ]}
          />
          <table class="data">
            <caption>Largest streams</caption>
            <thead>
              <tr>
                <th scope="col">Stream</th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.largest_streams.map((stream) => (
                <tr key={stream.stream_id}>
                  <td class="mono">
                    <Link
                      route={{
                        page: "stream",
                        streamId: stream.stream_id,
                        view: newestView(pageSizeDefault),
                        tenant: tenantId,
                      }}
                    >
                      {stream.stream_id}
                    </Link>
                  </td>
                  <td class="num">{formatCount(stream.event_count)}</td>
                  <td class="num">{formatBytes(stream.bytes)}</td>
                  <td>
                    <Time iso={stream.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
