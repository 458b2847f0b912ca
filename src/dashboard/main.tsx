// The dashboard's entry point: the browser loads this bundle from /dashboard/assets/.
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
