import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './App.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
// The service worker caches the app shell so it opens with no signal after its first load.
if ('serviceWorker' in navigator) registerSW({ immediate: true });
