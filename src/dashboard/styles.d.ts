// esbuild bundles imported CSS into the stylesheet next to the script.
declare module '*.css';
