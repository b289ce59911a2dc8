/**
 * A browser as the OAuth pages see one (apps' tests, the identity bench): it follows no redirect by
 * itself (the caller steps through them and looks at each), keeps the cookies it is given, and
 * sends forms as a browser does.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  async request(url: string, init: { method?: string; form?: Record<string, string | string[]> } = {}) {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    let body: string | undefined;
    if (init.form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(init.form)) for (const one of [value].flat()) params.append(name, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(new URL(url, this.origin), {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    return { status: response.status, location: response.headers.get('location') ?? undefined, text: await response.text() };
  }
}

/** The action of a page's first form sent by POST. */
export const postAction = (page: string) => /<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '';
