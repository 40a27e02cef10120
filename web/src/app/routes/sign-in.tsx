import { useNavigate, useSearchParams } from 'react-router';
import { SignInForm } from '@/features/auth/components/sign-in-form';

export function Component() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  // Only same-site paths: never bounce to another origin after sign-in.
  const target = next && next.startsWith('/') && !next.startsWith('//') ? next : '/runs';
  return (
    <div style={{ display: 'grid', placeItems: 'center', minHeight: '100vh', padding: 16 }}>
      <SignInForm onSignedIn={() => navigate(target, { replace: true })} ssoFailed={params.get('sso') === 'failed'} />
    </div>
  );
}
