export default function Home() {
  return (
    <main>
      <h1>Latchkey in Next.js</h1>
      <p>
        The auth API lives under <code>/api/auth</code>: see <a href="/api/auth/openapi.json">its OpenAPI document</a>.
      </p>
    </main>
  );
}
