import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './App.tsx';
import { plainHttp } from './lib/secure.ts';
import './styles.css';

render(<App />, document.getElementById('app')!);
// The service worker caches the app shell so it opens with no signal after its first load.
// Browsers give service workers to secure contexts only: over plain http the app goes without
// (the Account page says what that costs).
if (!plainHttp && 'serviceWorker' in navigator) registerSW({ immediate: true });
